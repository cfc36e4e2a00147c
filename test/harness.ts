import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Config, testConfig } from '../src/config.js';
import { ensureAdminTokens } from '../src/features/access/index.js';
import { type Database, openDatabase } from '../src/platform/db/database.js';
import { withDatabase } from './global-setup.js';

export const ADMIN_TOKEN = '*:*.test-admin-token-0123456789abcdef';

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  /** An admin-authenticated request; pass `headers: { authorization: undefined }` to send none. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** `request` in short: a JSON payload when given, extra headers (undefined removes one). */
  send(
    method: string,
    url: string,
    payload?: unknown,
    headers?: Record<string, string | undefined>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A fresh database for this test file (a copy of the migrated template) and an app on it. */
export async function openTestDatabase(): Promise<{
  database: Database;
  drop: () => Promise<void>;
  /** Opens another handle on the same database, as a second instance would (PGlite: the same one). */
  another: () => Promise<Database>;
  /** What the database's sessions are doing (PostgreSQL), for a teardown that does not finish. */
  sessions?: () => Promise<unknown[]>;
  /** The database's postgres:// URL (PostgreSQL only), for a connection of a test's own. */
  url?: string;
}> {
  if (process.env.TEST_ENGINE === 'postgres') {
    const url = process.env.TEST_DATABASE_URL!;
    const name = `flagship_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await createFromTemplate(admin, name, inject('postgresTemplate'));
    await admin.end();
    const database = await openDatabase({ url: withDatabase(url, name), poolSize: 5 });
    const drop = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    };
    const sessions = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction,
                  left(query, 200) AS query
             FROM pg_stat_activity WHERE datname = $1`,
          [name],
        );
        return rows;
      } finally {
        await client.end();
      }
    };
    return {
      database,
      drop,
      sessions,
      url: withDatabase(url, name),
      another: () => openDatabase({ url: withDatabase(url, name), poolSize: 5 }),
    };
  }
  const template = await readFile(inject('pgliteTemplate'));
  const database = await openDatabase({ loadDataDir: new Blob([template]) });
  // PGlite lives in this process only: a second instance on it shares the handle (not closed twice).
  return { database, drop: async () => {}, another: async () => ({ ...database, close: async () => {} }) };
}

/**
 * PostgreSQL copies a template only while nobody else is connected to it, and a concurrent copy
 * counts as connected: test files starting together retry for a moment (SQLSTATE 55006).
 */
async function createFromTemplate(client: pg.Client, name: string, template: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt > 100) throw error;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
}

export async function startTestApp(
  options: {
    config?: Partial<Config>;
    now?: () => Date;
    /** Runs on the built app before `ready` (a test's own hook, say). */
    beforeReady?: (app: FastifyInstance) => void;
  } = {},
): Promise<TestApp> {
  const { database, drop, sessions } = await openTestDatabase();
  await ensureAdminTokens(database.db, [ADMIN_TOKEN]);
  const app = await buildApp({
    database,
    config: testConfig(options.config),
    now: options.now ?? (() => new Date()),
  });
  options.beforeReady?.(app);
  await app.ready();
  const request = (opts: InjectOptions) => {
    const headers = Object.fromEntries(
      Object.entries({ authorization: ADMIN_TOKEN, ...opts.headers }).filter(([, v]) => v !== undefined),
    );
    return app.inject({ ...opts, headers } as InjectOptions);
  };
  return {
    app,
    database,
    request,
    send: (method, url, payload, headers = {}) =>
      request({
        method: method as 'GET',
        url,
        ...(payload !== undefined && { payload: payload as object }),
        headers,
      }),
    close: async () => {
      // A teardown that hangs (seen rarely on PostgreSQL under load) says where, and what the
      // process and the database's sessions were doing, before the hook's timeout ends it.
      let step = 'app.close';
      const watch = setTimeout(async () => {
        const report = {
          step,
          resources: process.getActiveResourcesInfo(),
          sessions: await sessions?.().catch((error: unknown) => String(error)),
        };
        process.stderr.write(`test teardown slow: ${JSON.stringify(report, null, 2)}\n`);
      }, 20_000);
      watch.unref();
      try {
        await app.close();
        step = 'database.close';
        await database.close();
        step = 'drop';
        await drop();
      } finally {
        clearTimeout(watch);
      }
    },
  };
}

/** A name unique within the test file, so tests in one file never collide. */
let counter = 0;
export function uniqueName(prefix = 'flag'): string {
  counter += 1;
  return `${prefix}-${counter}-${randomBytes(3).toString('hex')}`;
}

/**
 * Two database handles on one fresh database with the test admin token, as two instances of the
 * service would have; `close` closes both and drops the database.
 */
export async function openTwoInstances(): Promise<{
  first: Database;
  second: Database;
  close: () => Promise<void>;
}> {
  const opened = await openTestDatabase();
  const second = await opened.another();
  await ensureAdminTokens(opened.database.db, [ADMIN_TOKEN]);
  return {
    first: opened.database,
    second,
    close: async () => {
      await second.close();
      await opened.database.close();
      await opened.drop();
    },
  };
}
