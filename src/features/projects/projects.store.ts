import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface ProjectRow {
  id: string;
  name: string;
  description: string | null;
  mode: 'open' | 'protected' | 'private';
  defaultStickiness: string;
  featureLimit: number | null;
  featureNaming: { pattern: string | null; example: string | null; description: string | null };
  createdAt: Date;
  updatedAt: Date | null;
  archivedAt: Date | null;
}

const columns = [
  'id',
  'name',
  'description',
  'mode',
  'default_stickiness',
  'feature_limit',
  'feature_naming_pattern',
  'feature_naming_example',
  'feature_naming_description',
  'created_at',
  'updated_at',
  'archived_at',
] as const;

interface Raw {
  id: string;
  name: string;
  description: string | null;
  mode: 'open' | 'protected' | 'private';
  default_stickiness: string;
  feature_limit: number | null;
  feature_naming_pattern: string | null;
  feature_naming_example: string | null;
  feature_naming_description: string | null;
  created_at: Date;
  updated_at: Date | null;
  archived_at: Date | null;
}

const toRow = (r: Raw): ProjectRow => ({
  id: r.id,
  name: r.name,
  description: r.description,
  mode: r.mode,
  defaultStickiness: r.default_stickiness,
  featureLimit: r.feature_limit,
  featureNaming: {
    pattern: r.feature_naming_pattern,
    example: r.feature_naming_example,
    description: r.feature_naming_description,
  },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  archivedAt: r.archived_at,
});

const toColumns = (p: Omit<ProjectRow, 'createdAt' | 'updatedAt' | 'archivedAt'>) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  mode: p.mode,
  default_stickiness: p.defaultStickiness,
  feature_limit: p.featureLimit,
  feature_naming_pattern: p.featureNaming.pattern,
  feature_naming_example: p.featureNaming.example,
  feature_naming_description: p.featureNaming.description,
});

/** Inserts the project; undefined when the id is taken (the primary key decides). */
export async function insertProject(
  db: Kysely<DB>,
  p: Omit<ProjectRow, 'createdAt' | 'updatedAt' | 'archivedAt'>,
  now: Date,
): Promise<ProjectRow | undefined> {
  const row = await db
    .insertInto('projects')
    .values({ ...toColumns(p), created_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning(columns)
    .executeTakeFirst();
  return row && toRow(row);
}

/** The project, its row locked for the rest of the transaction when `lock` is set. */
export async function findProject(db: Kysely<DB>, id: string, lock = false): Promise<ProjectRow | undefined> {
  const query = db.selectFrom('projects').select(columns).where('id', '=', id);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return row && toRow(row);
}

export async function updateProjectRow(db: Kysely<DB>, p: ProjectRow, now: Date): Promise<void> {
  const { id: _id, ...values } = toColumns(p);
  await db
    .updateTable('projects')
    .set({ ...values, updated_at: now })
    .where('id', '=', p.id)
    .execute();
}

/**
 * Enables environments in the project: the named ones, or every enabled environment when `names`
 * is undefined. Returns the names actually added, in environment order.
 */
export async function attachEnvironments(
  db: Kysely<DB>,
  projectId: string,
  names: string[] | undefined,
): Promise<string[]> {
  const chosen = names ? sql`name = ANY(${names}::text[])` : sql`enabled`;
  const result = await sql<{ environment_name: string }>`
    INSERT INTO project_environments (project_id, environment_name)
    SELECT ${projectId}, name FROM environments WHERE ${chosen}
    ORDER BY sort_order, name
    ON CONFLICT DO NOTHING
    RETURNING environment_name`.execute(db);
  return result.rows.map((r) => r.environment_name);
}

export async function listProjectEnvironments(db: Kysely<DB>, projectId: string) {
  return db
    .selectFrom('project_environments as pe')
    .innerJoin('environments as e', 'e.name', 'pe.environment_name')
    .select(['pe.environment_name as environment', 'pe.default_strategy'])
    .where('pe.project_id', '=', projectId)
    .orderBy('e.sort_order')
    .orderBy('e.name')
    .execute();
}

export async function countFlags(db: Kysely<DB>, projectId: string) {
  const row = await db
    .selectFrom('features')
    .select((eb) => [
      eb.fn.countAll<number>().filterWhere('archived_at', 'is', null).as('active'),
      eb.fn.countAll<number>().filterWhere('archived_at', 'is not', null).as('archived'),
    ])
    .where('project', '=', projectId)
    .executeTakeFirstOrThrow();
  return { active: Number(row.active), archived: Number(row.archived) };
}

/**
 * Deletes the project (its environments, favorites, roles, segments and context fields cascade);
 * its flags and API tokens are gone first, through their slices.
 */
export async function deleteProjectRow(db: Kysely<DB>, projectId: string): Promise<void> {
  await db.deleteFrom('projects').where('id', '=', projectId).execute();
}

/** Favorites: rows only for real users (favorite_projects.user_id references users). */
export async function addFavorite(db: Kysely<DB>, projectId: string, userId: number): Promise<boolean> {
  const r = await sql`INSERT INTO favorite_projects (project, user_id) VALUES (${projectId}, ${userId})
    ON CONFLICT DO NOTHING RETURNING project`.execute(db);
  return r.rows.length > 0;
}

export async function removeFavorite(db: Kysely<DB>, projectId: string, userId: number): Promise<boolean> {
  const r = await sql`DELETE FROM favorite_projects WHERE project = ${projectId} AND user_id = ${userId}
    RETURNING project`.execute(db);
  return r.rows.length > 0;
}

export async function isFavorite(db: Kysely<DB>, projectId: string, userId: number | null) {
  if (userId === null) return false;
  const r =
    await sql`SELECT 1 FROM favorite_projects WHERE project = ${projectId} AND user_id = ${userId}`.execute(
      db,
    );
  return r.rows.length > 0;
}
