import pg from 'pg';
import { withDatabase } from './global-setup.js';
import type { TestApp } from './harness.js';

/**
 * A second PostgreSQL session on the test app's database, for a transaction held open while the
 * app works (a writer that took its event id first and commits last). Its event insert holds the
 * event_counts shard `pg_backend_pid() % 16` until it commits (migrations/0001), so the session is
 * one whose shard no open connection of the app uses: otherwise the app's next write would wait
 * for this transaction, which waits for that write.
 */
export async function heldSession(t: TestApp): Promise<pg.Client> {
  const [row] = await t.database.session((run) => run('SELECT current_database() AS db'));
  const connectionString = withDatabase(process.env.TEST_DATABASE_URL as string, String(row?.db));
  const taken = new Set(
    (
      await t.database.session((run) =>
        run('SELECT pid % 16 AS shard FROM pg_stat_activity WHERE datname = current_database()'),
      )
    ).map((r) => Number(r.shard)),
  );
  const opened: pg.Client[] = [];
  let client = new pg.Client({ connectionString });
  for (;;) {
    await client.connect();
    const [mine] = (await client.query('SELECT pg_backend_pid() % 16 AS shard')).rows;
    if (!taken.has(Number(mine.shard)) || opened.length >= 32) break;
    opened.push(client);
    client = new pg.Client({ connectionString });
  }
  await Promise.all(opened.map((c) => c.end()));
  return client;
}

/** Takes `count` event ids and throws them away, as rolled-back transactions (a trial import) do. */
export async function consumeEventIds(t: TestApp, count: number) {
  await t.database.session((run) =>
    run(`SELECT count(nextval(pg_get_serial_sequence('events', 'id'))) FROM generate_series(1, $1)`, [count]),
  );
}
