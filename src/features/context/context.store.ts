import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface ContextRow {
  name: string;
  description: string | null;
  stickiness: boolean;
  sortOrder: number;
  legalValues: { value: string; description?: string }[];
  project: string | null;
  createdAt: Date;
  usedInFeatures: number;
  usedInProjects: number;
}

/** Fields with their usage: flags (and their projects) with a strategy constraint on the field. */
export async function listContextFields(db: Kysely<DB>, name?: string, lock = false): Promise<ContextRow[]> {
  let q = db
    .selectFrom('context_fields as c')
    .select([
      'c.name',
      'c.description',
      'c.stickiness',
      'c.sort_order',
      'c.legal_values',
      'c.project',
      'c.created_at',
    ])
    .select([
      sql<number>`(SELECT count(DISTINCT s.feature_name)::int FROM feature_strategies s
        WHERE s.constraints @> jsonb_build_array(jsonb_build_object('contextName', c.name)))`.as(
        'used_in_features',
      ),
      sql<number>`(SELECT count(DISTINCT f.project)::int FROM feature_strategies s JOIN features f ON f.name = s.feature_name
        WHERE s.constraints @> jsonb_build_array(jsonb_build_object('contextName', c.name)))`.as(
        'used_in_projects',
      ),
    ])
    .orderBy('c.sort_order')
    .orderBy('c.name');
  if (name !== undefined) q = q.where('c.name', '=', name);
  const rows = await (lock ? q.forUpdate() : q).execute();
  return rows.map((r) => ({
    name: r.name,
    description: r.description,
    stickiness: r.stickiness,
    sortOrder: r.sort_order,
    legalValues: r.legal_values,
    project: r.project,
    createdAt: r.created_at,
    usedInFeatures: Number(r.used_in_features),
    usedInProjects: Number(r.used_in_projects),
  }));
}

export interface ContextValues {
  name: string;
  description: string | null;
  stickiness: boolean;
  sortOrder: number;
  legalValues: { value: string; description?: string }[];
  project: string | null;
}

/** Inserts the field; false when the name is taken. An unknown project fails on the foreign key. */
export async function insertContextField(db: Kysely<DB>, f: ContextValues): Promise<boolean> {
  const row = await db
    .insertInto('context_fields')
    .values({
      name: f.name,
      description: f.description,
      stickiness: f.stickiness,
      sort_order: f.sortOrder,
      legal_values: JSON.stringify(f.legalValues),
      project: f.project,
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateContextField(db: Kysely<DB>, f: ContextValues): Promise<void> {
  await db
    .updateTable('context_fields')
    .set({
      description: f.description,
      stickiness: f.stickiness,
      sort_order: f.sortOrder,
      legal_values: JSON.stringify(f.legalValues),
      project: f.project,
    })
    .where('name', '=', f.name)
    .execute();
}

export async function deleteContextField(db: Kysely<DB>, name: string): Promise<boolean> {
  const rows = await db.deleteFrom('context_fields').where('name', '=', name).returning('name').execute();
  return rows.length > 0;
}

export async function contextFieldExists(db: Kysely<DB>, name: string): Promise<boolean> {
  return (
    (await db.selectFrom('context_fields').select('name').where('name', '=', name).executeTakeFirst()) !==
    undefined
  );
}

/** Strategies (of any flag, archived ones too) with a constraint on the field, by flag and id. */
export async function strategiesUsingField(db: Kysely<DB>, name: string) {
  const result = await sql<{
    id: string;
    featureName: string;
    projectId: string;
    environment: string;
    strategyName: string;
  }>`
    SELECT s.id, s.feature_name AS "featureName", f.project AS "projectId", s.environment,
      s.strategy_name AS "strategyName"
    FROM feature_strategies s JOIN features f ON f.name = s.feature_name
    WHERE s.constraints @> jsonb_build_array(jsonb_build_object('contextName', ${name}::text))
    ORDER BY s.feature_name, s.environment, s.sort_order, s.id`.execute(db);
  return result.rows;
}
