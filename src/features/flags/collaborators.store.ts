import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { compiledOnce } from '../../platform/db/compiled-once.js';
import type { DB } from '../../platform/db/schema.js';
import { type FlagViewRow, flagViewQuery } from './flags.store.js';

/** At most this many collaborators, the latest first: a flag's answer stays bounded. */
export const MAX_COLLABORATORS = 50;

export interface CollaboratorRow {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
}

// The users who recorded events of the flag (tokens and the system have no positive id), by their
// latest event; users since deleted drop out. Uses events_feature_name (feature_name, id DESC).
const collaborators = sql<CollaboratorRow[]>`(
  SELECT coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'username', u.username,
    'email', u.email) ORDER BY c.last DESC), '[]'::json)
  FROM (SELECT e.created_by_user_id AS id, max(e.id) AS last FROM events e
        WHERE e.feature_name = f.name AND e.created_by_user_id > 0
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
