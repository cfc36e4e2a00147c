import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { ensureAdminTokens } from '../src/features/access/index.js';
import { type Database, openDatabase } from '../src/platform/db/database.js';
import { type DbProxy, startDbProxy } from './db-proxy.js';
import { ADMIN_TOKEN, openTestDatabase, uniqueName } from './harness.js';

/**
 * PUTs of one flag that arrive together share one statement (flags.service.ts, batchedUpdates).
 * When the database goes away in the middle, each PUT gets the 503 it would get alone, and each
 * batch is applied whole or not at all: never some of its changes without the others, never a
 * change without its event. The app reaches PostgreSQL through a proxy the test can cut
 * (test/db-proxy.ts); the test holds the flag's row on a connection of its own, so that the
 * first PUT waits in the database and the others queue behind it.
 */
const onPostgres = process.env.TEST_ENGINE === 'postgres';

describe.skipIf(!onPostgres)('a batch of PUTs when the database goes away (PostgreSQL)', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let proxy: DbProxy;
  let database: Database;
  let app: FastifyInstance;

  beforeAll(async () => {
    opened = await openTestDatabase();
    await ensureAdminTokens(opened.database.db, [ADMIN_TOKEN]);
    proxy = await startDbProxy(opened.url as string);
    database = await openDatabase({ url: proxy.url(opened.url as string), poolSize: 5 });
    app = await buildApp({ database, config: testConfig(), now: () => new Date() });
    await app.ready();
  });
  afterAll(async () => {
    await proxy?.restore();
    await app?.close();
    await database?.close();
    await proxy?.close();
    await opened?.database.close();
    await opened?.drop();
  });

  const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    app.inject({ method, url, payload, headers: { authorization: ADMIN_TOKEN } });

  it('answers 503 to each PUT, applies nothing halfway, and takes PUTs again once it is back', async () => {
    const flag = uniqueName('outage');
    const flagUrl = `/api/admin/projects/default/features/${flag}`;
    expect(
      (await send('POST', '/api/admin/projects/default/features', { name: flag, description: 'start' }))
        .statusCode,
    ).toBe(200);

    const direct = new pg.Client({ connectionString: opened.url });
    await direct.connect();
    let answers: { statusCode: number; body: string }[];
    try {
      await direct.query('BEGIN');
      await direct.query('SELECT name FROM features WHERE name = $1 FOR UPDATE', [flag]);
      const sent = Promise.all(
        Array.from({ length: 6 }, (_, i) => send('PUT', flagUrl, { description: `change ${i}` })),
      );
      // The first run's statement waits for the row in the database (seen there), the other PUTs
      // queue behind it or share it.
      const waiting = async () =>
        Number(
          (
            await direct.query(
              `SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0]?.n,
        );
      for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await waiting()).toBe(1);
      await new Promise((r) => setTimeout(r, 100));
      await proxy.cut('refuse');
      await direct.query('COMMIT');
      answers = await sent;
    } finally {
      await direct.end();
    }

    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(JSON.parse(answer.body)).toMatchObject({ name: 'ServiceUnavailableError' });
    }

    // The statement in flight at the cut (the first PUT's, or all six if they arrived before its
    // run began) had reached the database: PostgreSQL may still run it once the row is free, its
    // answer lost with the connection. The runs after the cut found no database. So the flag shows
    // the changes of the first run and nothing else, or none, and its events say exactly that:
    // `change 0` … `change k` in order, one event each, the flag at the last of them.
    const check = new pg.Client({ connectionString: opened.url });
    await check.connect();
    try {
      const { rows: flags } = await check.query('SELECT description FROM features WHERE name = $1', [flag]);
      const { rows: events } = await check.query(
        `SELECT data->>'description' AS description FROM events
          WHERE feature_name = $1 AND type = 'feature-metadata-updated' ORDER BY id`,
        [flag],
      );
      const recorded = events.map((e) => e.description as string);
      expect(recorded).toEqual(recorded.map((_, i) => `change ${i}`));
      expect(flags[0]?.description).toBe(recorded.at(-1) ?? 'start');
    } finally {
      await check.end();
    }

    await proxy.restore();
    let again = await send('PUT', flagUrl, { description: 'after' });
    for (let i = 0; i < 50 && again.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await send('PUT', flagUrl, { description: 'after' });
    }
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ name: flag, description: 'after' });
  });
});
