import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { StoredVariant } from './variants.schemas.js';

export interface FlagEnvironmentVariants {
  environment: string;
  variants: StoredVariant[];
}

/** The flag's environments that its project has enabled, in environment sort order. */
export async function listFlagEnvironmentVariants(
  db: Kysely<DB>,
  name: string,
  project: string,
): Promise<FlagEnvironmentVariants[]> {
  const rows = await db
    .selectFrom('feature_environments as fe')
    .innerJoin('environments as e', 'e.name', 'fe.environment')
    .innerJoin('project_environments as pe', (join) =>
      join.onRef('pe.environment_name', '=', 'fe.environment').on('pe.project_id', '=', project),
    )
    .select(['fe.environment', 'fe.variants'])
    .where('fe.feature_name', '=', name)
    .orderBy('e.sort_order')
    .orderBy('e.name')
    .execute();
  return rows.map((r) => ({ environment: r.environment, variants: r.variants as StoredVariant[] }));
}

export async function saveVariants(
  db: Kysely<DB>,
  name: string,
  environments: string[],
  variants: StoredVariant[],
): Promise<void> {
  if (environments.length === 0) return;
  await db
    .updateTable('feature_environments')
    .set({ variants: JSON.stringify(variants) })
    .where('feature_name', '=', name)
    .where('environment', 'in', environments)
    .execute();
}

/** Gives the new flag `to` the variants `from` has in each environment both have (cloning a flag). */
export async function copyEnvironmentVariants(db: Kysely<DB>, from: string, to: string) {
  await sql`UPDATE feature_environments t SET variants = s.variants
    FROM feature_environments s
    WHERE s.feature_name = ${from} AND t.feature_name = ${to} AND t.environment = s.environment`.execute(db);
}
