import type { Kysely, Selectable } from 'kysely';
import type { ActionSetsTable, ActionsTable, DB } from '../../platform/db/schema.js';
import type { ActionSet, ActionSetEvent, ActionSetInput } from './actions.schemas.js';

type Db = Kysely<DB>;

function toActionSet(row: Selectable<ActionSetsTable>, actions: Selectable<ActionsTable>[]): ActionSet {
  return {
    id: row.id,
    project: row.project,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    actorId: row.actor_id,
    match: {
      source: row.match_source,
      sourceId: row.match_source_id,
      payload: row.match_payload as ActionSet['match']['payload'],
    },
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id,
    actions: actions
      .filter((a) => a.action_set_id === row.id)
      .map((a) => ({
        id: a.id,
        action: a.action,
        sortOrder: a.sort_order,
        executionParams: a.execution_params,
        createdAt: a.created_at.toISOString(),
        createdByUserId: a.created_by_user_id,
      })),
  };
}

async function withActions(db: Db, rows: Selectable<ActionSetsTable>[]) {
  const actions =
    rows.length === 0
      ? []
      : await db
          .selectFrom('actions')
          .selectAll()
          .where(
            'action_set_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('sort_order')
          .orderBy('id')
          .execute();
  return rows.map((r) => toActionSet(r, actions));
}

export async function listActionSets(db: Db, project: string) {
  return withActions(
    db,
    await db.selectFrom('action_sets').selectAll().where('project', '=', project).orderBy('id').execute(),
  );
}

export async function findActionSet(db: Db, project: string, id: number, lock = false) {
  const query = db.selectFrom('action_sets').selectAll().where('id', '=', id).where('project', '=', project);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return row && (await withActions(db, [row]))[0];
}

/** The enabled action sets that listen to any of these signal endpoints. */
export async function enabledActionSetsOf(db: Db, sourceIds: number[]) {
  if (sourceIds.length === 0) return [];
  return withActions(
    db,
    await db
      .selectFrom('action_sets')
      .selectAll()
      .where('enabled', '=', true)
      .where('match_source_id', 'in', sourceIds)
      .orderBy('id')
      .execute(),
  );
}

const columns = (input: ActionSetInput) => ({
  name: input.name,
  description: input.description ?? null,
  enabled: input.enabled ?? true,
  actor_id: input.actorId,
  match_source_id: input.match.sourceId,
  match_payload: JSON.stringify(input.match.payload),
});

async function insertActions(db: Db, setId: number, input: ActionSetInput, userId: number | null, now: Date) {
  await db
    .insertInto('actions')
    .values(
      input.actions.map((a) => ({
        action_set_id: setId,
        action: a.action,
        sort_order: a.sortOrder,
        execution_params: JSON.stringify(a.executionParams),
        created_at: now,
        created_by_user_id: userId,
      })),
    )
    .execute();
}

export async function insertActionSet(
  db: Db,
  project: string,
  input: ActionSetInput,
  userId: number | null,
  now: Date,
) {
  const { id } = await db
    .insertInto('action_sets')
    .values({ ...columns(input), project, created_at: now, created_by_user_id: userId })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertActions(db, id, input, userId, now);
  return id;
}

/** Replaces the set's content; its actions are replaced by the new list (new ids). */
export async function replaceActionSet(
  db: Db,
  id: number,
  input: ActionSetInput,
  userId: number | null,
  now: Date,
) {
  await db.updateTable('action_sets').set(columns(input)).where('id', '=', id).execute();
  await db.deleteFrom('actions').where('action_set_id', '=', id).execute();
  await insertActions(db, id, input, userId, now);
}

export async function setActionSetEnabled(db: Db, id: number, enabled: boolean) {
  await db.updateTable('action_sets').set({ enabled }).where('id', '=', id).execute();
}

export async function deleteActionSet(db: Db, id: number) {
  await db.deleteFrom('action_sets').where('id', '=', id).execute();
}

export async function insertRun(db: Db, run: Omit<ActionSetEvent, 'id'>) {
  await db
    .insertInto('action_set_events')
    .values({
      action_set_id: run.actionSetId,
      signal_id: run.signalId,
      state: run.state,
      signal: JSON.stringify(run.signal),
      action_set: JSON.stringify(run.actionSet),
      created_at: run.createdAt,
    })
    .execute();
}

export async function listRuns(
  db: Db,
  setId: number,
  limit: number,
  offset: number,
): Promise<ActionSetEvent[]> {
  const rows = await db
    .selectFrom('action_set_events')
    .selectAll()
    .where('action_set_id', '=', setId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    actionSetId: r.action_set_id,
    signalId: r.signal_id,
    createdAt: r.created_at.toISOString(),
    state: r.state,
    signal: r.signal as ActionSetEvent['signal'],
    actionSet: r.action_set as ActionSetEvent['actionSet'],
  }));
}

/** How many times each of these action sets ran since `since`. */
export async function runsSince(db: Db, setIds: number[], since: Date): Promise<Map<number, number>> {
  if (setIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('action_set_events')
    .select(['action_set_id', (eb) => eb.fn.countAll<number>().as('runs')])
    .where('action_set_id', 'in', setIds)
    .where('created_at', '>=', since)
    .groupBy('action_set_id')
    .execute();
  return new Map(rows.map((r) => [r.action_set_id, Number(r.runs)]));
}

/** Removes runs older than `before`, and beyond the newest `keep` of each of these action sets. */
export async function pruneRuns(db: Db, before: Date, keep: number, setIds: number[]) {
  await db.deleteFrom('action_set_events').where('created_at', '<', before).execute();
  for (const id of setIds) {
    const edge = await db
      .selectFrom('action_set_events')
      .select('id')
      .where('action_set_id', '=', id)
      .orderBy('id', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (edge) {
      await db
        .deleteFrom('action_set_events')
        .where('action_set_id', '=', id)
        .where('id', '<=', edge.id)
        .execute();
    }
  }
}

/** The project's environments and active flags (what an action can name), or undefined when there is no such project. */
export async function projectChoices(db: Db, project: string) {
  const found = await db.selectFrom('projects').select('id').where('id', '=', project).executeTakeFirst();
  if (!found) return undefined;
  const [environments, flags] = await Promise.all([
    db
      .selectFrom('project_environments')
      .select('environment_name')
      .where('project_id', '=', project)
      .orderBy('environment_name')
      .execute(),
    db
      .selectFrom('features')
      .select('name')
      .where('project', '=', project)
      .where('archived_at', 'is', null)
      .orderBy('name')
      .execute(),
  ]);
  return { environments: environments.map((e) => e.environment_name), flags: flags.map((f) => f.name) };
}

/**
 * The active flags of the project that carry the tag (`type:value`, split at the first colon), by
 * name: none for a tag that is not of that form.
 */
export async function flagsTagged(db: Db, project: string, tag: string): Promise<string[]> {
  const at = tag.indexOf(':');
  if (at <= 0) return [];
  const rows = await db
    .selectFrom('feature_tag as t')
    .innerJoin('features as f', 'f.name', 't.feature_name')
    .select('f.name')
    .where('f.project', '=', project)
    .where('f.archived_at', 'is', null)
    .where('t.tag_type', '=', tag.slice(0, at))
    .where('t.tag_value', '=', tag.slice(at + 1))
    .orderBy('f.name')
    .execute();
  return rows.map((r) => r.name);
}

/** The tags on the project's active flags, as `type:value`, sorted. */
export async function projectTags(db: Db, project: string): Promise<string[]> {
  const rows = await db
    .selectFrom('feature_tag as t')
    .innerJoin('features as f', 'f.name', 't.feature_name')
    .select(['t.tag_type', 't.tag_value'])
    .distinct()
    .where('f.project', '=', project)
    .where('f.archived_at', 'is', null)
    .orderBy('t.tag_type')
    .orderBy('t.tag_value')
    .execute();
  return rows.map((r) => `${r.tag_type}:${r.tag_value}`);
}
