import type { IsolationLevel, Kysely, Transaction } from 'kysely';
import { sqlState } from './pg-errors.js';
import type { DB } from './schema.js';

/** How many times a transaction runs at most when PostgreSQL keeps choosing it as the victim. */
const ATTEMPTS = 5;

/**
 * SQLSTATEs after which the whole transaction may simply run again: deadlock_detected (PostgreSQL
 * aborted this transaction to break a lock cycle) and serialization_failure. Both roll the
 * transaction back completely, so nothing of the failed attempt remains.
 */
const RETRYABLE = new Set(['40P01', '40001']);

let retries = 0;

/** How many transactions this process has run again so far (diagnostics; tests check it). */
export function transactionRetries(): number {
  return retries;
}

/**
 * Runs fn in a transaction, and runs it again (up to 5 attempts in all, after a short randomised
 * pause) when the transaction fails with a deadlock (40P01) or a serialization failure (40001).
 * Any other error propagates at once. Every write goes through here: the retry lives in one place.
 *
 * fn may therefore run more than once: all its effects must be inside the transaction (values it
 * derives from its arguments, such as ids generated before the call, are fine to reuse). Lock
 * order keeps deadlocks rare (see lockFlag in the flag-rows slice); this is the safety net for the
 * cycles no order rules out, such as two transactions creating the same new tags in turn.
 */
export async function transaction<T>(
  db: Kysely<DB>,
  fn: (tx: Transaction<DB>) => Promise<T>,
  options: { isolationLevel?: IsolationLevel } = {},
): Promise<T> {
  return withRetries(() => {
    const builder = options.isolationLevel
      ? db.transaction().setIsolationLevel(options.isolationLevel)
      : db.transaction();
    return builder.execute(fn);
  });
}

/**
 * A write made of one statement, which is its own transaction (autocommit): no BEGIN and COMMIT
 * round trips, so the row locks it takes are held only while it runs and commits. Retried as
 * `transaction` retries. `fn` must issue exactly one statement (a data-modifying WITH may change
 * several tables at once); with two, the first would commit alone.
 */
export function singleStatement<T>(db: Kysely<DB>, fn: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return withRetries(() => fn(db));
}

async function withRetries<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = sqlState(error);
      if (attempt >= ATTEMPTS || code === undefined || !RETRYABLE.has(code)) throw error;
      retries += 1;
      // 5-10 ms, then 10-20, 20-40, 40-80: the transactions that collided start apart.
      const ceiling = 10 * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, ceiling / 2 + Math.random() * (ceiling / 2)));
    }
  }
}
