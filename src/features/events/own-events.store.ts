import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The newest event id now (0 for none): where `flagsWithOwnEventsSince` starts counting. */
export async function newestEventId(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ id: number }>`SELECT coalesce(max(id), 0)::int AS id FROM events`.execute(db);
  return rows[0]?.id ?? 0;
}

/**
 * The flags named by events that the caller's transaction recorded after `afterId`, by name: which
 * flags a batch of writes changed. Events of other transactions committed meanwhile are not counted
 * (xmin is the inserting transaction).
 */
export async function flagsWithOwnEventsSince(db: Kysely<DB>, afterId: number): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT DISTINCT feature_name AS name FROM events
    WHERE id > ${afterId} AND feature_name IS NOT NULL AND xmin = pg_current_xact_id()::xid
    ORDER BY feature_name`.execute(db);
  return rows.map((r) => r.name);
}
