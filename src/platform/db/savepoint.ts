import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * Runs `fn` under a savepoint of the caller's transaction: when it throws, what it wrote is rolled
 * back and the transaction goes on (the error is rethrown for the caller to record). For jobs that
 * do several independent pieces of work in one transaction (scheduled change requests, actions).
 */
export async function underSavepoint<T>(db: Kysely<DB>, fn: () => Promise<T>): Promise<T> {
  await sql`SAVEPOINT piece`.execute(db);
  try {
    const result = await fn();
    await sql`RELEASE SAVEPOINT piece`.execute(db);
    return result;
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT piece`.execute(db);
    throw error;
  }
}
