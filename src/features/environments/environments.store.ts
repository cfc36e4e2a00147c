import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface EnvironmentRow {
  name: string;
  type: string;
  enabled: boolean;
  protected: boolean;
  sortOrder: number;
}

interface Counted extends EnvironmentRow {
  projectCount: number;
  apiTokenCount: number;
  enabledToggleCount: number;
}

const withCounts = (db: Kysely<DB>) =>
  db
    .selectFrom('environments as e')
    .select(['e.name', 'e.type', 'e.enabled', 'e.protected', 'e.sort_order as sortOrder'])
    .select([
      sql<number>`(SELECT count(*)::int FROM project_environments pe WHERE pe.environment_name = e.name)`.as(
        'projectCount',
      ),
      sql<number>`(SELECT count(*)::int FROM api_tokens t WHERE t.environment = e.name)`.as('apiTokenCount'),
      sql<number>`(SELECT count(*)::int FROM feature_environments fe JOIN features f ON f.name = fe.feature_name
        WHERE fe.environment = e.name AND fe.enabled AND f.archived_at IS NULL)`.as('enabledToggleCount'),
    ]);

export async function listEnvironments(db: Kysely<DB>): Promise<Counted[]> {
  return withCounts(db).orderBy('e.sort_order').orderBy('e.name').execute();
}

export async function findEnvironment(db: Kysely<DB>, name: string): Promise<Counted | undefined> {
  return withCounts(db).where('e.name', '=', name).executeTakeFirst();
}

export async function lockEnvironment(db: Kysely<DB>, name: string): Promise<EnvironmentRow | undefined> {
  return db
    .selectFrom('environments')
    .select(['name', 'type', 'enabled', 'protected', 'sort_order as sortOrder'])
    .where('name', '=', name)
    .forUpdate()
    .executeTakeFirst();
}

/** Inserts the environment; false when the name is taken (the primary key decides). */
export async function insertEnvironment(
  db: Kysely<DB>,
  env: { name: string; type: string; enabled: boolean; sortOrder: number | undefined },
): Promise<boolean> {
  const row = await db
    .insertInto('environments')
    .values({
      name: env.name,
      type: env.type,
      enabled: env.enabled,
      ...(env.sortOrder !== undefined && { sort_order: env.sortOrder }),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateEnvironmentRow(db: Kysely<DB>, env: EnvironmentRow): Promise<void> {
  await db
    .updateTable('environments')
    .set({ type: env.type, sort_order: env.sortOrder, enabled: env.enabled })
    .where('name', '=', env.name)
    .execute();
}

/** Deletes the environment; project environments, flag environments and strategies cascade. */
export async function deleteEnvironmentRow(db: Kysely<DB>, name: string): Promise<void> {
  await db.deleteFrom('environments').where('name', '=', name).execute();
}

/** Enabled environments, their rows locked so concurrent disables are counted one after the other. */
export async function countEnabledEnvironments(db: Kysely<DB>): Promise<number> {
  const rows = await db
    .selectFrom('environments')
    .select('name')
    .where('enabled', '=', true)
    .forUpdate()
    .execute();
  return rows.length;
}

/** Every environment as project `projectId` sees it: whether it has it, and its counts there. */
export async function listProjectEnvironmentViews(db: Kysely<DB>, projectId: string) {
  const result = await sql<{
    name: string;
    type: string;
    enabled: boolean;
    protected: boolean;
    sortOrder: number;
    projectApiTokenCount: number;
    projectEnabledToggleCount: number;
  }>`
    SELECT e.name, e.type, e.protected, e.sort_order AS "sortOrder",
      EXISTS (SELECT 1 FROM project_environments pe WHERE pe.project_id = ${projectId} AND pe.environment_name = e.name) AS enabled,
      (SELECT count(*)::int FROM api_tokens t WHERE t.environment = e.name AND t.type IN ('client', 'frontend')
        AND (${projectId} = ANY(t.projects) OR '*' = ANY(t.projects))) AS "projectApiTokenCount",
      (SELECT count(*)::int FROM feature_environments fe JOIN features f ON f.name = fe.feature_name
        WHERE fe.environment = e.name AND fe.enabled AND f.archived_at IS NULL AND f.project = ${projectId}) AS "projectEnabledToggleCount"
    FROM environments e
    ORDER BY e.sort_order, e.name`.execute(db);
  return result.rows;
}

/** Locks the named environments in name order; those that do not exist are missing from the answer. */
export async function lockEnvironments(db: Kysely<DB>, names: string[]): Promise<EnvironmentRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('environments')
    .select(['name', 'type', 'enabled', 'protected', 'sort_order as sortOrder'])
    .where('name', 'in', names)
    .orderBy('name')
    .forUpdate()
    .execute();
}

export async function projectExists(db: Kysely<DB>, id: string): Promise<boolean> {
  return (await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
