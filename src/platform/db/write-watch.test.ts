import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/harness.js';
import type { Database } from './database.js';
import { PREPARE_ALWAYS } from './pglite-prepared.js';
import { mayWrite } from './write-watch.js';

/**
 * `keepUntilWrite` answers a read again from memory only while nothing could have changed it.
 * On each engine: a value is never served past a write that completed before the call. On
 * PGlite (one process holds the database): reads alone do not read again.
 */
let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  await sql`CREATE TABLE watched (n int)`.execute(database.db);
  await sql`CREATE SEQUENCE watched_seq`.execute(database.db);
  // A new sequence shows last_value 1 before and after its first nextval: take that one here.
  await sql`SELECT nextval('watched_seq')`.execute(database.db);
});
afterAll(async () => {
  await database.close();
  await drop();
});

/** A kept `count(*) + last sequence value` and how many times it was really read. */
function counted(prefix = '') {
  let reads = 0;
  const read = database.keepUntilWrite(async () => {
    reads += 1;
    const { rows } = await sql<{ v: string }>`${sql.raw(prefix)}
      SELECT (SELECT count(*) FROM watched)::text || ':' || (SELECT last_value FROM watched_seq)::text AS v`.execute(
      database.db,
    );
    return rows[0]?.v;
  });
  return { read, reads: () => reads };
}

describe('keepUntilWrite', () => {
  it('never answers from before a completed write: insert, transaction, nextval in a SELECT', async () => {
    const { read } = counted();
    const first = await read();
    await sql`INSERT INTO watched VALUES (1)`.execute(database.db);
    const afterInsert = await read();
    expect(afterInsert).not.toBe(first);
    await database.db.transaction().execute(async (tx) => {
      await sql`INSERT INTO watched VALUES (2)`.execute(tx);
    });
    const afterTransaction = await read();
    expect(afterTransaction).not.toBe(afterInsert);
    await sql`SELECT nextval('watched_seq')`.execute(database.db);
    const afterNextval = await read();
    expect(afterNextval).not.toBe(afterTransaction);
    await sql`WITH x AS (INSERT INTO watched VALUES (3) RETURNING n) SELECT n FROM x`.execute(database.db);
    expect(await read()).not.toBe(afterNextval);
  });

  it('a rolled-back transaction reads again but shows the same value', async () => {
    const { read, reads } = counted();
    const before = await read();
    const failing = database.db.transaction().execute(async (tx) => {
      await sql`INSERT INTO watched VALUES (4)`.execute(tx);
      throw new Error('roll back');
    });
    await expect(failing).rejects.toThrow('roll back');
    const n = reads();
    expect(await read()).toBe(before);
    // On PGlite the end of any transaction counts as a possible write; on PostgreSQL every call reads.
    expect(reads()).toBe(n + 1);
  });

  it.runIf(process.env.TEST_ENGINE === 'pglite')(
    'on PGlite, reads alone (other SELECTs, marked to be prepared or not) are answered from memory',
    async () => {
      for (const prefix of ['', PREPARE_ALWAYS]) {
        await sql`INSERT INTO watched VALUES (1)`.execute(database.db);
        const { read, reads } = counted(prefix);
        const value = await read();
        await sql`SELECT * FROM watched`.execute(database.db);
        await sql`${sql.raw(PREPARE_ALWAYS)}SELECT count(*) FROM watched`.execute(database.db);
        expect(await Promise.all([read(), read(), read()])).toEqual([value, value, value]);
        expect(reads()).toBe(1);
        await sql`DELETE FROM watched WHERE n = 1`.execute(database.db);
        expect(await read()).not.toBe(value);
        expect(reads()).toBe(2);
      }
    },
  );

  it.runIf(process.env.TEST_ENGINE === 'postgres')(
    'on PostgreSQL every call reads: another instance may have written',
    async () => {
      const { read, reads } = counted();
      await read();
      await read();
      expect(reads()).toBe(2);
    },
  );
});

describe('mayWrite', () => {
  it('counts only plain SELECTs as reads', () => {
    expect(mayWrite('select * from flags')).toBe(false);
    expect(mayWrite('  SELECT 1')).toBe(false);
    expect(mayWrite('insert into flags values (1)')).toBe(true);
    expect(mayWrite('with x as (update flags set a = 1 returning *) select * from x')).toBe(true);
    expect(mayWrite("SELECT nextval('unlogged_changes')")).toBe(true);
    expect(mayWrite('select pg_advisory_xact_lock(1)')).toBe(true);
    expect(mayWrite('begin')).toBe(true);
    expect(mayWrite('selection')).toBe(true);
    // Leading comments are inert: a marked statement is as read-only as the same without the mark.
    expect(mayWrite(`${PREPARE_ALWAYS}SELECT 1`)).toBe(false);
    expect(mayWrite('/* a */ /* b ** c */ select 1')).toBe(false);
    expect(mayWrite('/* a */ insert into flags values (1)')).toBe(true);
    expect(mayWrite(`${PREPARE_ALWAYS}SELECT nextval('unlogged_changes')`)).toBe(true);
    expect(mayWrite('/* a /* nested */ */ select 1')).toBe(true);
  });
});
