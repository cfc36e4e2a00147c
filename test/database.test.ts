import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './harness.js';

/** What the database layer promises beyond plain queries. */
let database: Awaited<ReturnType<typeof openTestDatabase>>['database'];
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
});
afterAll(async () => {
  await database.close();
  await drop();
});

describe.runIf(process.env.TEST_ENGINE === 'postgres')('on PostgreSQL', () => {
  it('prepares large statements by name, once per connection, and not small ones', async () => {
    const large = `SELECT name FROM features WHERE name = $1 ${'AND true '.repeat(50)}`;
    const names = await database.db.connection().execute(async (connection) => {
      for (let i = 0; i < 3; i++) await sql.raw(large.replace('$1', "'x'")).execute(connection);
      await sql`SELECT ${1}::int AS small`.execute(connection);
      const rows = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
        connection,
      );
      return rows.rows.map((row) => row.statement);
    });
    expect(names.filter((statement) => statement.includes('AND true AND true'))).toHaveLength(1);
    expect(names.some((statement) => statement.includes('small'))).toBe(false);
  });
});
