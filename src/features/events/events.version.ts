import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';

/**
 * A value that changes whenever anything an admin read shows changes: the number of events (the
 * log only grows, and every configuration change appends one in its own transaction) and the
 * counter of changes that record no event. Reads the counter rows the events trigger keeps, so
 * it costs one small query.
 */
export async function changeVersion(db: Db): Promise<string> {
  const { rows } = await sql<{ version: string }>`SELECT
      (SELECT coalesce(sum(count), 0) FROM event_counts)::text || ':' ||
      (SELECT last_value FROM unlogged_changes)::text AS version`.execute(db);
  return rows[0]?.version ?? '';
}

/**
 * Call after the commit of a change that records no event (never inside its transaction: a
 * sequence moves at once, and a reader must not see the new version before the change).
 */
export async function noteUnloggedChange(db: Db): Promise<void> {
  await sql`SELECT nextval('unlogged_changes')`.execute(db);
}
