import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  DB,
  ReleasePlanMilestonesTable,
  ReleasePlanSafeguardsTable,
  ReleasePlansTable,
  ReleasePlanTemplatesTable,
} from '../../platform/db/schema.js';
import type { Milestone, MilestoneStrategy, Plan, Safeguard, SafeguardInput } from '../shapes/index.js';
import type { Template } from './release-plans.schemas.js';

type Db = Kysely<DB>;
type MilestoneRow = Selectable<ReleasePlanMilestonesTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toMilestone(row: MilestoneRow): Milestone {
  return {
    id: row.id,
    name: row.name,
    sortOrder: row.sort_order,
    releasePlanDefinitionId: (row.template_id ?? row.plan_id) as string,
    strategies: row.strategies as MilestoneStrategy[],
    startedAt: iso(row.started_at),
    pausedAt: iso(row.paused_at),
    progressionExecutedAt: iso(row.progression_executed_at),
    transitionCondition: row.progression_minutes ? { intervalMinutes: row.progression_minutes } : null,
  };
}

async function milestonesOf(db: Db, owner: 'template_id' | 'plan_id', ids: string[]) {
  if (ids.length === 0) return new Map<string, Milestone[]>();
  const rows = await db
    .selectFrom('release_plan_milestones')
    .selectAll()
    .where(owner, 'in', ids)
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
  const byOwner = new Map<string, Milestone[]>();
  for (const row of rows) {
    const key = row[owner] as string;
    byOwner.set(key, [...(byOwner.get(key) ?? []), toMilestone(row)]);
  }
  return byOwner;
}

function toTemplate(row: Selectable<ReleasePlanTemplatesTable>, milestones: Milestone[]): Template {
  return {
    id: row.id,
    discriminator: 'template',
    name: row.name,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id,
    archivedAt: iso(row.archived_at),
    milestones,
  };
}

function toSafeguard(row: Selectable<ReleasePlanSafeguardsTable>): Safeguard {
  return {
    id: row.id,
    action: { id: row.plan_id, type: 'pauseReleasePlanProgressions' },
    impactMetric: { metricName: row.metric, timeRange: row.time_range },
    triggerCondition: { operator: row.operator, threshold: row.threshold },
  };
}

async function safeguardsOf(db: Db, planIds: string[]) {
  if (planIds.length === 0) return new Map<string, Safeguard[]>();
  const rows = await db
    .selectFrom('release_plan_safeguards')
    .selectAll()
    .where('plan_id', 'in', planIds)
    .execute();
  const byPlan = new Map<string, Safeguard[]>();
  for (const row of rows) byPlan.set(row.plan_id, [...(byPlan.get(row.plan_id) ?? []), toSafeguard(row)]);
  return byPlan;
}

function toPlan(
  row: Selectable<ReleasePlansTable>,
  milestones: Milestone[],
  safeguards: Safeguard[] = [],
): Plan {
  return {
    id: row.id,
    discriminator: 'plan',
    name: row.name,
    description: row.description,
    featureName: row.feature_name,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id,
    activeMilestoneId: row.active_milestone_id,
    releasePlanTemplateId: row.template_id,
    milestones,
    safeguards,
  };
}

export async function listTemplates(db: Db): Promise<Template[]> {
  const rows = await db
    .selectFrom('release_plan_templates')
    .selectAll()
    .where('archived_at', 'is', null)
    .orderBy('name')
    .execute();
  const milestones = await milestonesOf(
    db,
    'template_id',
    rows.map((r) => r.id),
  );
  return rows.map((r) => toTemplate(r, milestones.get(r.id) ?? []));
}

export async function findTemplate(db: Db, id: string, lock = false): Promise<Template | undefined> {
  const query = db.selectFrom('release_plan_templates').selectAll().where('id', '=', id);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return row && toTemplate(row, (await milestonesOf(db, 'template_id', [id])).get(id) ?? []);
}

export interface NewMilestone {
  id: string;
  name: string;
  sortOrder: number;
  strategies: MilestoneStrategy[];
}

async function insertMilestones(
  db: Db,
  owner: { template_id: string } | { plan_id: string },
  list: NewMilestone[],
) {
  if (list.length === 0) return;
  await db
    .insertInto('release_plan_milestones')
    .values(
      list.map((m) => ({
        ...owner,
        id: m.id,
        name: m.name,
        sort_order: m.sortOrder,
        strategies: JSON.stringify(m.strategies),
      })),
    )
    .execute();
}

export async function insertTemplate(
  db: Db,
  t: { id: string; name: string; description: string | null; userId: number | null; now: Date },
  milestones: NewMilestone[],
) {
  await db
    .insertInto('release_plan_templates')
    .values({
      id: t.id,
      name: t.name,
      description: t.description,
      created_at: t.now,
      created_by_user_id: t.userId,
    })
    .execute();
  await insertMilestones(db, { template_id: t.id }, milestones);
}

export async function replaceTemplate(
  db: Db,
  id: string,
  t: { name: string; description: string | null },
  milestones: NewMilestone[],
) {
  await db.updateTable('release_plan_templates').set(t).where('id', '=', id).execute();
  await db.deleteFrom('release_plan_milestones').where('template_id', '=', id).execute();
  await insertMilestones(db, { template_id: id }, milestones);
}

export async function archiveTemplate(db: Db, id: string, now: Date) {
  await db.updateTable('release_plan_templates').set({ archived_at: now }).where('id', '=', id).execute();
}

export async function deleteTemplate(db: Db, id: string) {
  await db.deleteFrom('release_plan_templates').where('id', '=', id).execute();
}

/** A flag environment, named with the project the flag must be in (a path's project is checked). */
export interface PlanWhere {
  project: string;
  feature: string;
  environment: string;
}

/** The plans of the flag environment, when the flag is in that project. */
const plansIn = (db: Db, w: PlanWhere) =>
  db
    .selectFrom('release_plans')
    .selectAll()
    .where('feature_name', '=', w.feature)
    .where('environment', '=', w.environment)
    .where('feature_name', 'in', db.selectFrom('features').select('name').where('project', '=', w.project));

export async function plansOf(db: Db, w: PlanWhere): Promise<Plan[]> {
  const rows = await plansIn(db, w).orderBy('id').execute();
  const ids = rows.map((r) => r.id);
  const [milestones, safeguards] = await Promise.all([
    milestonesOf(db, 'plan_id', ids),
    safeguardsOf(db, ids),
  ]);
  return rows.map((r) => toPlan(r, milestones.get(r.id) ?? [], safeguards.get(r.id)));
}

/** The plans of every environment of the flag (its own read: the flag is found by name). */
export async function plansOfFlag(db: Db, feature: string): Promise<Plan[]> {
  const rows = await db
    .selectFrom('release_plans')
    .selectAll()
    .where('feature_name', '=', feature)
    .orderBy('id')
    .execute();
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [milestones, safeguards] = await Promise.all([
    milestonesOf(db, 'plan_id', ids),
    safeguardsOf(db, ids),
  ]);
  return rows.map((r) => toPlan(r, milestones.get(r.id) ?? [], safeguards.get(r.id)));
}

export async function findPlan(db: Db, w: PlanWhere, id: string, lock = false) {
  let query = plansIn(db, w).where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const [milestones, safeguards] = await Promise.all([
    milestonesOf(db, 'plan_id', [id]),
    safeguardsOf(db, [id]),
  ]);
  return toPlan(row, milestones.get(id) ?? [], safeguards.get(id));
}

export async function insertPlan(
  db: Db,
  p: {
    id: string;
    templateId: string;
    feature: string;
    environment: string;
    name: string;
    description: string | null;
    userId: number | null;
    now: Date;
  },
  milestones: NewMilestone[],
) {
  await db
    .insertInto('release_plans')
    .values({
      id: p.id,
      template_id: p.templateId,
      feature_name: p.feature,
      environment: p.environment,
      name: p.name,
      description: p.description,
      created_at: p.now,
      created_by_user_id: p.userId,
    })
    .execute();
  await insertMilestones(db, { plan_id: p.id }, milestones);
}

export async function deletePlan(db: Db, id: string) {
  await db.deleteFrom('release_plans').where('id', '=', id).execute();
}

/** The flag environment's strategies the plan put there (still there). */
export async function planStrategyIds(db: Db, planId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('release_plan_strategies')
    .select('strategy_id')
    .where('plan_id', '=', planId)
    .orderBy('strategy_id')
    .execute();
  return rows.map((r) => r.strategy_id);
}

/** The milestone is active: its strategies are the plan's, it started now, unpaused. */
export async function activate(
  db: Db,
  planId: string,
  milestoneId: string,
  strategyIds: string[],
  now: Date,
) {
  await db.deleteFrom('release_plan_strategies').where('plan_id', '=', planId).execute();
  if (strategyIds.length > 0) {
    await db
      .insertInto('release_plan_strategies')
      .values(strategyIds.map((id) => ({ strategy_id: id, plan_id: planId, milestone_id: milestoneId })))
      .execute();
  }
  await db
    .updateTable('release_plans')
    .set({ active_milestone_id: milestoneId })
    .where('id', '=', planId)
    .execute();
  await db
    .updateTable('release_plan_milestones')
    .set({ started_at: now, paused_at: null, progression_executed_at: null })
    .where('id', '=', milestoneId)
    .execute();
}

export async function markProgressionExecuted(db: Db, milestoneId: string, now: Date) {
  await db
    .updateTable('release_plan_milestones')
    .set({ progression_executed_at: now })
    .where('id', '=', milestoneId)
    .execute();
}

export async function setProgression(
  db: Db,
  milestoneId: string,
  target: string | null,
  minutes: number | null,
) {
  await db
    .updateTable('release_plan_milestones')
    .set({ progression_target: target, progression_minutes: minutes })
    .where('id', '=', milestoneId)
    .execute();
}

export async function setPaused(db: Db, milestoneId: string, pausedAt: Date | null) {
  await db
    .updateTable('release_plan_milestones')
    .set({ paused_at: pausedAt })
    .where('id', '=', milestoneId)
    .execute();
}

/**
 * Active milestones whose progression is due at `now` (started at least its minutes ago, not
 * paused, not yet moved on), with what the job needs to decide: the flag's project, whether it is
 * archived, and whether it is on in the plan's environment.
 */
export function dueProgressions(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('release_plan_milestones as m')
    .innerJoin('release_plans as p', (j) =>
      j.onRef('p.id', '=', 'm.plan_id').onRef('p.active_milestone_id', '=', 'm.id'),
    )
    .innerJoin('features as f', 'f.name', 'p.feature_name')
    .leftJoin('feature_environments as fe', (j) =>
      j.onRef('fe.feature_name', '=', 'p.feature_name').onRef('fe.environment', '=', 'p.environment'),
    )
    .select([
      'm.id as milestoneId',
      'm.progression_target as target',
      'p.id as planId',
      'p.feature_name as feature',
      'p.environment',
      'f.project',
      'f.archived_at as archivedAt',
      'fe.enabled',
    ])
    .where('m.progression_target', 'is not', null)
    .where('m.paused_at', 'is', null)
    .where('m.progression_executed_at', 'is', null)
    .where('m.started_at', 'is not', null)
    .where(sql<boolean>`m.started_at + make_interval(mins => m.progression_minutes) <= ${now}`)
    .orderBy('m.started_at')
    .limit(limit)
    .execute();
}

/** Whether the flag is in the project and the environment is one of the project's. */
export async function flagEnvironmentIn(db: Db, project: string, feature: string, environment: string) {
  const row = await db
    .selectFrom('features as f')
    .innerJoin('project_environments as pe', 'pe.project_id', 'f.project')
    .select('f.name')
    .where('f.name', '=', feature)
    .where('f.project', '=', project)
    .where('pe.environment_name', '=', environment)
    .executeTakeFirst();
  return row !== undefined;
}

/** Sets the plan's safeguard (one per plan: a new one replaces it). */
export async function putSafeguard(db: Db, planId: string, id: string, input: SafeguardInput, now: Date) {
  const values = {
    metric: input.impactMetric.metricName,
    time_range: input.impactMetric.timeRange,
    operator: input.triggerCondition.operator,
    threshold: input.triggerCondition.threshold,
  };
  const row = await db
    .insertInto('release_plan_safeguards')
    .values({ id, plan_id: planId, created_at: now, ...values })
    .onConflict((oc) => oc.column('plan_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSafeguard(row);
}

export async function deleteSafeguard(db: Db, planId: string, id: string) {
  const row = await db
    .deleteFrom('release_plan_safeguards')
    .where('plan_id', '=', planId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toSafeguard(row);
}

/** Plans with a safeguard whose active milestone is not paused: what the job watches. */
export function guardedPlans(db: Db) {
  return db
    .selectFrom('release_plan_safeguards as g')
    .innerJoin('release_plans as p', 'p.id', 'g.plan_id')
    .innerJoin('release_plan_milestones as m', 'm.id', 'p.active_milestone_id')
    .innerJoin('features as f', 'f.name', 'p.feature_name')
    .select([
      'g.metric',
      'g.time_range as timeRange',
      'g.operator',
      'g.threshold',
      'p.id as planId',
      'p.feature_name as feature',
      'p.environment',
      'f.project',
      'm.id as milestoneId',
    ])
    .where('m.paused_at', 'is', null)
    .orderBy('p.id')
    .execute();
}

/**
 * The flag's yes and no answers in the environment since `since`, summed over applications. The
 * SDK metrics are kept in hourly buckets, so the bucket `since` falls in counts whole: the range
 * starts at the top of that hour.
 */
export async function answersSince(db: Db, feature: string, environment: string, since: Date) {
  const hour = new Date(since);
  hour.setUTCMinutes(0, 0, 0);
  const row = await db
    .selectFrom('client_metrics_env')
    .select((eb) => [eb.fn.sum<string>('yes').as('yes'), eb.fn.sum<string>('no').as('no')])
    .where('feature_name', '=', feature)
    .where('environment', '=', environment)
    .where('timestamp', '>=', hour)
    .executeTakeFirst();
  return { yes: Number(row?.yes ?? 0), no: Number(row?.no ?? 0) };
}
