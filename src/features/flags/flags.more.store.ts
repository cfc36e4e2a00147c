import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { flagViewQuery } from './flags.store.js';

/** Flags of a project in the Flag view, by name; `archived` picks the archive or the active flags. */
export async function listFlagViews(db: Kysely<DB>, project: string | undefined, archived: boolean) {
  let query = flagViewQuery(db).where('f.archived_at', archived ? 'is not' : 'is', null);
  if (project !== undefined) query = query.where('f.project', '=', project);
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
 * Sets `stale` on the listed active flags of the project whose value differs; returns the changed
 * names. The flags' rows are locked first, in name order (the lock order, see lockFlag): one UPDATE
 * of several rows would lock them in whatever order its plan visits them.
 */
export async function setStale(
  db: Kysely<DB>,
  project: string,
  names: string[],
  stale: boolean,
): Promise<string[]> {
  if (names.length === 0) return [];
  await db
    .selectFrom('features')
    .select('name')
    .where('project', '=', project)
    .where('name', 'in', names)
    .orderBy('name')
    .forUpdate()
    .execute();
  const rows = await db
    .updateTable('features')
    .set({ stale })
    .where('project', '=', project)
    .where('name', 'in', names)
    .where('archived_at', 'is', null)
    .where('stale', '<>', stale)
    .returning('name')
    .execute();
  return rows.map((r) => r.name).sort();
}

export type Stage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';

/** Every stage the flag entered, oldest first (ties in the order of the stages). */
export async function listStages(db: Kysely<DB>, name: string) {
  return db
    .selectFrom('feature_lifecycles')
    .select(['stage', 'status', 'status_value', 'created_at'])
    .where('feature_name', '=', name)
    .orderBy('created_at')
    .orderBy(sql`array_position(array['initial','pre-live','live','completed','archived'], stage)`)
    .execute();
}

/** Enters the stage (again): a stage entered before gets its new time and status. */
export async function upsertStage(
  db: Kysely<DB>,
  name: string,
  stage: Stage,
  at: Date,
  status: string | null = null,
  statusValue: string | null = null,
) {
  await db
    .insertInto('feature_lifecycles')
    .values({ feature_name: name, stage, created_at: at, status, status_value: statusValue })
    .onConflict((oc) =>
      oc
        .columns(['feature_name', 'stage'])
        .doUpdateSet({ created_at: at, status, status_value: statusValue }),
    )
    .execute();
}

/** Removes the stage; returns whether the flag had it. */
export async function deleteStage(db: Kysely<DB>, name: string, stage: Stage): Promise<boolean> {
  const row = await db
    .deleteFrom('feature_lifecycles')
    .where('feature_name', '=', name)
    .where('stage', '=', stage)
    .returning('stage')
    .executeTakeFirst();
  return row !== undefined;
}

/** Copies the environment state (variants, not `enabled`) and the tags of `from` onto the new flag `to`. */
export async function copyEnvironmentsAndTags(db: Kysely<DB>, from: string, to: string) {
  await sql`UPDATE feature_environments t SET variants = s.variants
    FROM feature_environments s
    WHERE s.feature_name = ${from} AND t.feature_name = ${to} AND t.environment = s.environment`.execute(db);
  await sql`INSERT INTO feature_tag (feature_name, tag_type, tag_value, created_by_user_id)
    SELECT ${to}, tag_type, tag_value, created_by_user_id FROM feature_tag WHERE feature_name = ${from}
    ON CONFLICT DO NOTHING`.execute(db);
}

/** The strategies of a flag in environments the new flag also has, with their segment ids. */
export async function strategiesToCopy(db: Kysely<DB>, from: string, to: string) {
  return db
    .selectFrom('feature_strategies as s')
    .innerJoin('feature_environments as fe', (join) =>
      join.onRef('fe.environment', '=', 's.environment').on('fe.feature_name', '=', to),
    )
    .select([
      's.id',
      's.environment',
      's.strategy_name',
      's.title',
      's.disabled',
      's.sort_order',
      's.parameters',
      's.constraints',
      's.variants',
    ])
    .select(sql<number[]>`strategy_segment_ids(s.id)`.as('segments'))
    .where('s.feature_name', '=', from)
    .orderBy('s.environment')
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .execute();
}

export type StrategyToCopy = Awaited<ReturnType<typeof strategiesToCopy>>[number];

export async function insertStrategyCopy(
  db: Kysely<DB>,
  to: string,
  id: string,
  s: StrategyToCopy,
  parameters: Record<string, string>,
  userId: number,
) {
  await db
    .insertInto('feature_strategies')
    .values({
      id,
      feature_name: to,
      environment: s.environment,
      strategy_name: s.strategy_name,
      title: s.title,
      disabled: s.disabled,
      sort_order: s.sort_order,
      parameters: JSON.stringify(parameters),
      constraints: JSON.stringify(s.constraints),
      variants: JSON.stringify(s.variants),
      created_by_user_id: userId,
    })
    .execute();
  if (s.segments.length > 0) {
    await db
      .insertInto('feature_strategy_segment')
      .values(s.segments.map((segment) => ({ feature_strategy_id: id, segment_id: segment })))
      .execute();
  }
}

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

/** The flags `name` depends on. */
export async function parentsOf(db: Kysely<DB>, name: string): Promise<string[]> {
  const rows = await db
    .selectFrom('feature_dependencies')
    .select('parent')
    .where('child', '=', name)
    .execute();
  return rows.map((r) => r.parent);
}

/** Gives the new flag `to` the parents of `from`; returns the dependencies added. */
export async function copyDependencies(db: Kysely<DB>, from: string, to: string) {
  const rows = await sql<{ parent: string; enabled: boolean; variants: string[] | null }>`
    INSERT INTO feature_dependencies (parent, child, enabled, variants)
    SELECT parent, ${to}, enabled, variants FROM feature_dependencies WHERE child = ${from}
    ON CONFLICT DO NOTHING RETURNING parent, enabled, variants`.execute(db);
  return rows.rows.sort((a, b) => a.parent.localeCompare(b.parent));
}
