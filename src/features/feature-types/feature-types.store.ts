import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { FeatureType } from './feature-types.schemas.js';

const columns = ['id', 'name', 'description', 'lifetime_days'] as const;
const toType = (r: {
  id: string;
  name: string;
  description: string | null;
  lifetime_days: number | null;
}) => ({
  id: r.id,
  name: r.name,
  description: r.description ?? '',
  lifetimeDays: r.lifetime_days,
});

const ORDER = ['release', 'experiment', 'operational', 'kill-switch', 'permission'];
const rank = (id: string) => (ORDER.includes(id) ? ORDER.indexOf(id) : ORDER.length);

/** Every flag type, in Unleash's order (release, experiment, operational, kill-switch, permission). */
export async function listFeatureTypes(db: Kysely<DB>): Promise<FeatureType[]> {
  const rows = await db.selectFrom('feature_types').select(columns).orderBy('id').execute();
  return rows.map(toType).sort((a, b) => rank(a.id) - rank(b.id));
}

export async function lockFeatureType(db: Kysely<DB>, id: string): Promise<FeatureType | undefined> {
  const row = await db
    .selectFrom('feature_types')
    .select(columns)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row && toType(row);
}

export async function setLifetime(db: Kysely<DB>, id: string, days: number | null): Promise<void> {
  await db.updateTable('feature_types').set({ lifetime_days: days }).where('id', '=', id).execute();
}
