import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Deletes events created before `before` (the retention job, EVENT_RETENTION_DAYS), in the
 * caller's transaction, and takes them off the event count. The newest event always stays: its id
 * is the configuration's revision (snapshot, ETags), which must not move back.
 *
 * The count (`event_counts`) is half of the admin read cache's change version: after a deletion
 * it shrinks, so the caller must move the other half (`noteUnloggedChange`) once this commits, or
 * a later state with as many events could show the version of an earlier one.
 */
export async function deleteEventsBefore(db: Kysely<DB>, before: Date): Promise<number> {
  const { rows } = await sql<{ removed: number }>`
    WITH removed AS (
      DELETE FROM events
      WHERE created_at < ${before} AND id < (SELECT max(id) FROM events)
      RETURNING 1
    ), counted AS (
      INSERT INTO event_counts (shard, count)
      SELECT pg_backend_pid() % 16, -count(*) FROM removed HAVING count(*) > 0
      ON CONFLICT (shard) DO UPDATE SET count = event_counts.count + EXCLUDED.count
    )
    SELECT count(*)::int AS removed FROM removed`.execute(db);
  return Number(rows[0]?.removed ?? 0);
}
