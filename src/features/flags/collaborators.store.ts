import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { compiledOnce } from '../../platform/db/compiled-once.js';
import type { DB } from '../../platform/db/schema.js';
import { type FlagViewRow, flagViewQuery } from './flags.store.js';

/** At most this many collaborators, the latest first: a flag's answer stays bounded. */
export const MAX_COLLABORATORS = 50;
/**
 * Collaborators are found among this many of the flag's latest events: a flag with a long history
 * costs a bounded read of its index, not a scan of all its events (~+3 ms on PostgreSQL for a flag
 * of 10,000 events without this bound).
 */
export const COLLABORATOR_EVENTS = 1_000;

export interface CollaboratorRow {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
}

// The users who recorded the flag's latest events (tokens and the system have no positive id), by
// their latest one; users since deleted drop out. Reads events_feature_name (feature_name, id DESC).
const collaborators = sql<CollaboratorRow[]>`(
  SELECT coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'username', u.username,
    'email', u.email) ORDER BY c.last DESC), '[]'::json)
  FROM (SELECT e.created_by_user_id AS id, max(e.id) AS last
        FROM (SELECT created_by_user_id, id FROM events WHERE feature_name = f.name
              ORDER BY id DESC LIMIT ${sql.lit(COLLABORATOR_EVENTS)}) e
        WHERE e.created_by_user_id > 0
        GROUP BY e.created_by_user_id ORDER BY last DESC LIMIT ${sql.lit(MAX_COLLABORATORS)}) c
  JOIN users u ON u.id = c.id)`;

const statement = compiledOnce(['name'], (db, v) =>
  flagViewQuery(db)
    .select(collaborators.as('collaborators'))
    .where('f.name', '=', v.name as string)
    .compile(),
);

/**
 * The flag view and its collaborators in one statement: what GET of one flag shows (its answer is
 * kept in the read cache, so this runs once per change, not per request). Writes and lists use the
 * view alone.
 */
export async function loadFlagViewWithCollaborators(
  db: Kysely<DB>,
  name: string,
): Promise<(FlagViewRow & { collaborators: CollaboratorRow[] }) | undefined> {
  const { rows } = await db.executeQuery(statement(db, { name }));
  return rows[0];
}
