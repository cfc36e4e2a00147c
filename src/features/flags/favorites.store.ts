import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** Adds the favorite; returns whether it was new. */
export async function insertFavorite(db: Kysely<DB>, name: string, userId: number): Promise<boolean> {
  const row = await db
    .insertInto('favorite_features')
    .values({ feature_name: name, user_id: userId })
    .onConflict((oc) => oc.columns(['feature_name', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes the favorite; returns whether there was one. */
export async function deleteFavorite(db: Kysely<DB>, name: string, userId: number): Promise<boolean> {
  const row = await db
    .deleteFrom('favorite_features')
    .where('feature_name', '=', name)
    .where('user_id', '=', userId)
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The names of the user's favorite flags. */
export async function listFavoriteFlags(db: Kysely<DB>, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('favorite_features')
    .select('feature_name')
    .where('user_id', '=', userId)
    .orderBy('feature_name')
    .execute();
  return rows.map((r) => r.feature_name);
}
