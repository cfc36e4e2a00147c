import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { flagViewQuery } from './flags.store.js';

/**
 * Flags of a project in the Flag view; `archived` picks the archive (newest archive first, then by
 * name) or the active flags (by name).
 */
export async function listFlagViews(db: Kysely<DB>, project: string | undefined, archived: boolean) {
  let query = flagViewQuery(db).where('f.archived_at', archived ? 'is not' : 'is', null);
  if (project !== undefined) query = query.where('f.project', '=', project);
  if (archived) query = query.orderBy('f.archived_at', 'desc');
  return query.orderBy('f.name').execute();
}

export async function activeProjectExists(db: Kysely<DB>, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
