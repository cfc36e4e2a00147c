import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

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
