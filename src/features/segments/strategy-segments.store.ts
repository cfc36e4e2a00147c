import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The flag, project and environment of a strategy (read only: the strategies slice writes it). */
export async function placeOfStrategy(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('feature_strategies as s')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select(['s.feature_name as featureName', 's.environment', 'f.project'])
    .where('s.id', '=', id)
    .executeTakeFirst();
}
