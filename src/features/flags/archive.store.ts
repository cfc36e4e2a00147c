import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { type FlagRow, flagColumns, toFlagRow } from '../flag-rows/index.js';

/** Whether some flag depends on this one. */
export async function hasChildren(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('feature_dependencies')
    .select('child')
    .where('parent', '=', name)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Permanently deletes the project's archived flags (a project deletion); returns them as they were.
 * Their rows are locked first, in name order (the lock order, see lockFlag in the flag-rows slice):
 * one DELETE of several rows would lock them in whatever order its plan visits them.
 */
export async function deleteArchivedFlagsOf(db: Kysely<DB>, projectId: string): Promise<FlagRow[]> {
  await db
    .selectFrom('features')
    .select('name')
    .where('project', '=', projectId)
    .where('archived_at', 'is not', null)
    .orderBy('name')
    .forUpdate()
    .execute();
  const rows = await db
    .deleteFrom('features')
    .where('project', '=', projectId)
    .where('archived_at', 'is not', null)
    .returning(flagColumns)
    .execute();
  return rows.map(toFlagRow).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Deletes the flag only if it is archived (everything hanging off it cascades); returns whether it did. */
export async function deleteArchivedFlag(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db
    .deleteFrom('features')
    .where('name', '=', name)
    .where('archived_at', 'is not', null)
    .returning('name')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Turns the flag off in every environment. A revived flag comes back off everywhere, as in
 * Unleash, so archiving and reviving never silently turns a flag back on for users.
 */
export async function disableAllEnvironments(db: Kysely<DB>, name: string): Promise<void> {
  await db
    .updateTable('feature_environments')
    .set({ enabled: false })
    .where('feature_name', '=', name)
    .where('enabled', '=', true)
    .execute();
}
