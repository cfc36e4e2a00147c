import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/harness.js';
import type { Database } from './database.js';
import { MAX_PREPARED, PREPARE_ALWAYS, PREPARE_FROM_LENGTH } from './pglite-prepared.js';

/**
 * Long statements are sent as named prepared statements on both engines (`preparingPool` on
 * PostgreSQL, `preparing` on PGlite, ADR 0016). What a caller sees must not change: the same rows
 * and value types as a statement sent unnamed, the database's own errors, transactions that
 * commit and roll back as before, and no mix-up when many run at once.
 */
let database: Database;
let drop: () => Promise<void>;

// A comment makes a statement long without changing what it does.
const padding = sql.raw(`/* ${'long statement '.repeat(Math.ceil(PREPARE_FROM_LENGTH / 15))} */`);

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  await sql`CREATE TABLE prepared_probe (
    id int8 PRIMARY KEY, label text UNIQUE, doc jsonb, at timestamptz, tags text[], on_off boolean)`.execute(
    database.db,
  );
});
afterAll(async () => {
  await database.close();
  await drop();
});

type Row = {
  id: number;
  label: string | null;
  doc: unknown;
  at: Date | null;
  tags: string[] | null;
  on_off: boolean;
};

const insert = (id: number, label: string | null, long: boolean) =>
  sql`INSERT INTO prepared_probe (id, label, doc, at, tags, on_off)
      VALUES (${id}, ${label}, ${JSON.stringify({ id, nested: { list: [1, 'two'] } })}::jsonb,
              ${new Date(Date.UTC(2026, 0, id))}, ${[`t${id}`, 'shared']}, ${id % 2 === 0})
      ${long ? padding : sql``}`;

const select = (from: number, long: boolean) =>
  sql<Row>`SELECT id, label, doc, at, tags, on_off FROM prepared_probe WHERE id >= ${from} ORDER BY id ${long ? padding : sql``}`;

describe('long statements (prepared by name)', () => {
  it('read and write exactly what the same statement sent unnamed does, every time it is sent', async () => {
    await insert(1, 'one', false).execute(database.db);
    await insert(2, null, true).execute(database.db);
    await insert(3, 'three', true).execute(database.db);
    for (const from of [1, 2, 3, 4]) {
      const short = await select(from, false).execute(database.db);
      const long = await select(from, true).execute(database.db);
      expect(long.rows).toEqual(short.rows);
      expect(long.rows).toHaveLength(Math.max(0, 4 - from));
    }
    const [first] = (await select(1, true).execute(database.db)).rows;
    expect(first).toEqual({
      id: 1,
      label: 'one',
      doc: { id: 1, nested: { list: [1, 'two'] } },
      at: new Date(Date.UTC(2026, 0, 1)),
      tags: ['t1', 'shared'],
      on_off: false,
    });
    const updated =
      await sql`UPDATE prepared_probe SET on_off = NOT on_off WHERE id >= ${2} ${padding}`.execute(
        database.db,
      );
    expect(updated.numAffectedRows).toBe(2n);
  });

  it('is kept by name in the session that ran it', async () => {
    const names = await database.db.transaction().execute(async (trx) => {
      // Twice: on PGlite a long statement is prepared the second time it is sent.
      await select(1, true).execute(trx);
      await select(1, true).execute(trx);
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
        trx,
      );
      return rows.map((r) => r.statement);
    });
    expect(names.some((s) => s.includes('long statement'))).toBe(true);
  });

  it('a short statement is kept by name when marked, and not otherwise', async () => {
    const marked = sql<{
      n: number;
    }>`${sql.raw(PREPARE_ALWAYS)}SELECT count(*)::int AS n FROM prepared_probe WHERE on_off = ${true}`;
    const unmarked = sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM prepared_probe WHERE on_off = ${false}`;
    const { names, answers } = await database.db.transaction().execute(async (trx) => {
      const answers = [];
      for (const _ of [1, 2])
        answers.push((await marked.execute(trx)).rows, (await unmarked.execute(trx)).rows);
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
        trx,
      );
      return { names: rows.map((r) => r.statement), answers };
    });
    const on = (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM prepared_probe WHERE on_off`.execute(
        database.db,
      )
    ).rows;
    const off = (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM prepared_probe WHERE NOT on_off`.execute(
        database.db,
      )
    ).rows;
    expect(answers).toEqual([on, off, on, off]);
    expect(names.some((s) => s.includes('on_off = $1') && s.startsWith(PREPARE_ALWAYS))).toBe(true);
    expect(names.some((s) => s.includes('count(*)::int AS n') && !s.startsWith(PREPARE_ALWAYS))).toBe(false);
  });

  it("fails with the database's own error, and the session goes on, in and out of transactions", async () => {
    const duplicate = await insert(10, 'one-more', true)
      .execute(database.db)
      .then(() => insert(11, 'one-more', true).execute(database.db))
      .catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 'prepared_probe_label_key' });

    const inTransaction = await database.db
      .transaction()
      .execute(async (trx) => {
        await insert(12, 'twelve', true).execute(trx);
        await insert(13, 'twelve', true).execute(trx);
      })
      .catch((error: unknown) => error);
    expect(inTransaction).toMatchObject({ code: '23505' });
    const ids = (await select(10, true).execute(database.db)).rows.map((r) => r.id);
    expect(ids).toEqual([10]);
  });

  it('are undone by a rollback and unseen outside until the commit, with many running at once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = database.db.transaction().execute(async (trx) => {
      await insert(100, 'in-transaction', true).execute(trx);
      await held;
      throw new Error('roll back');
    });
    const readers = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? select(100, true) : select(100, false))
        .execute(database.db)
        .then((r) => r.rows.some((row) => row.id === 100)),
    );
    const writers = Array.from({ length: 10 }, (_, i) => insert(200 + i, `w${i}`, true).execute(database.db));
    setTimeout(release, 20);
    await expect(transaction).rejects.toThrow('roll back');
    // No reader saw the row of the transaction: it never committed.
    expect(await Promise.all(readers)).not.toContain(true);
    await Promise.all(writers);
    const after = (await select(100, true).execute(database.db)).rows.map((r) => r.id);
    expect(after).toEqual(Array.from({ length: 10 }, (_, i) => 200 + i));
  });

  it.runIf(process.env.TEST_ENGINE === 'pglite')(
    'on PGlite keeps a bounded number of them, and a statement whose name was closed runs again',
    async () => {
      const plus = (i: number) =>
        sql<{ n: number }>`SELECT ${sql.raw(String(i))}::int + ${1}::int AS n ${padding}`;
      // Each twice: a long statement is prepared the second time it is sent.
      for (let i = 0; i < 300; i++)
        for (const _ of [1, 2]) expect((await plus(i).execute(database.db)).rows).toEqual([{ n: i + 1 }]);
      const count = async () =>
        (await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(database.db))
          .rows[0]?.n;
      const kept = await count();
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThanOrEqual(MAX_PREPARED);
      // A statement that does not parse, while the set is full, costs no other statement its name.
      await expect(sql`SELEC ${1} ${padding}`.execute(database.db)).rejects.toMatchObject({ code: '42601' });
      expect((await plus(0).execute(database.db)).rows).toEqual([{ n: 1 }]);
      expect((await plus(299).execute(database.db)).rows).toEqual([{ n: 300 }]);
      expect(await count()).toBeLessThanOrEqual(MAX_PREPARED);
    },
  );
});
