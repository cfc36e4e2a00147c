import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import type { EngineTarget } from './service.js';

export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** One session on the bench database, for loading data and reading facts back. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** A scratch database for one run: created at the start, removed by dispose(). */
export interface BenchDatabase {
  target: EngineTarget;
  /** PostgreSQL: a client (the service may run alongside). PGlite: only while the service is stopped. */
  connect(): Promise<Sql>;
  dispose(): Promise<void>;
  describe: string;
}

function dbUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** `prefix` names the scratch database (`<prefix>_<random>`), e.g. `unleash_bench` for the comparison. */
export async function createPostgresDatabase(prefix = 'flagship_bench'): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  return {
    target: { engine: 'postgres', env: { DATABASE_URL: url } },
    describe: `PostgreSQL database ${name}`,
    connect: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return {
        query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[],
        close: () => client.end(),
      };
    },
    dispose: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function createPgliteDatabase(): Promise<BenchDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'flagship-bench-'));
  return {
    target: { engine: 'pglite', env: { DATA_DIR: dir } },
    describe: `PGlite data directory ${dir}`,
    connect: async () => {
      // The service's migrations need pg_trgm (0010), which PGlite takes only when it opens.
      const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
      return {
        query: async <T>(text: string, params?: unknown[]) =>
          params ? (await db.query<T>(text, params)).rows : ((await db.exec(text)).at(-1)?.rows as T[]),
        close: () => db.close(),
      };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

export function createDatabase(engine: 'postgres' | 'pglite'): Promise<BenchDatabase> {
  return engine === 'postgres' ? createPostgresDatabase() : createPgliteDatabase();
}

/**
 * Scratch databases of one bench run and their cleanup: children stopped and databases dropped at
 * the end, and on SIGINT/SIGTERM (then the process exits 130).
 */
export function scratchCleanup(log: (message: string) => void, stopAll: () => Promise<void>) {
  const databases: BenchDatabase[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= (async () => {
      await stopAll();
      await Promise.allSettled(databases.map((d) => d.dispose()));
    })();
    return cleaning;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`\n${signal}: stopping the servers and dropping the scratch databases…`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  /** Stops listening for the signals (when the run goes on with other work). */
  const release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return { databases, cleanup, release };
}
