import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorDetail, invalid, nameExists, notFound } from '../../platform/http/errors.js';
import type { Applier, Change } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import { finishDraft } from '../strategies/index.js';
import type {
  MilestoneInput,
  MilestoneStrategy,
  Plan,
  SafeguardInput,
  Template,
  TemplateInput,
} from './release-plans.schemas.js';
import {
  activate,
  archiveTemplate,
  deletePlan,
  deleteSafeguard,
  deleteTemplate,
  findPlan,
  findTemplate,
  flagEnvironmentIn,
  insertPlan,
  insertTemplate,
  listTemplates,
  type NewMilestone,
  planStrategyIds,
  plansOf,
  putSafeguard,
  replaceTemplate,
  setPaused,
  setProgression,
} from './release-plans.store.js';

/**
 * Release plans (issue 48), at Unleash's paths: templates of ordered milestones
 * (`/api/admin/release-plan-templates`), applied to a flag environment as a plan
 * (`…/features/:featureName/environments/:environment/release-plans`). Decisions:
 * - Templates are managed by Admins and usable in every project; their names are unique among
 *   those not archived. Each milestone strategy is checked as a strategy is when saved (400 naming
 *   `/body/milestones/<i>/strategies/<j>/…`); a template needs at least one milestone.
 * - A plan copies its template's milestones (new ids): editing the template later changes no plan.
 *   One plan per flag environment (409).
 * - Starting a milestone is one change list through the one applier: `deleteStrategy` of each
 *   strategy the plan put there, then `addStrategy` of each of the milestone's, so the flag
 *   environment's other strategies stay, the strategy events are recorded as for a person, and the
 *   change-request gate applies. `release-plan-milestone-started` says which milestone.
 * - Removing a plan removes the strategies it put there, the same way.
 * - Writes on plans need UPDATE_FEATURE_STRATEGY in the environment; reads need no permission.
 */

export interface PlanContext {
  deps: Deps;
  changes: Applier;
}

const unknownTemplate = (id: string) => notFound(`Could not find release plan template "${id}".`);
const unknownPlan = (id: string) => notFound(`Could not find release plan "${id}" on this flag environment.`);
const userIdOf = (by: Principal) => (by.userId > 0 ? by.userId : null);

export async function record(
  tx: Db,
  type: string,
  by: Principal,
  where: { project?: string; featureName?: string; environment?: string },
  data?: unknown,
  preData?: unknown,
) {
  await appendEvent(tx, {
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    ...where,
    ...(data !== undefined && { data }),
    ...(preData !== undefined && { preData }),
  });
}

/** The milestones as stored: ids given, each strategy checked as a new strategy is. */
async function milestonesOf(db: Db, input: MilestoneInput[]): Promise<NewMilestone[]> {
  const problems: ErrorDetail[] = [];
  const out: NewMilestone[] = [];
  for (const [i, m] of input.entries()) {
    const id = randomUUID();
    const strategies: MilestoneStrategy[] = [];
    for (const [j, s] of (m.strategies ?? []).entries()) {
      try {
        await finishDraft(
          db,
          s,
          { flag: 'template', defaultStickiness: 'default' },
          j,
          `/body/milestones/${i}/strategies/${j}`,
        );
      } catch (error) {
        if (error instanceof AppError && error.details) problems.push(...error.details);
        else throw error;
      }
      strategies.push({
        id: randomUUID(),
        milestoneId: id,
        sortOrder: s.sortOrder,
        name: s.name,
        strategyName: s.name,
        title: s.title ?? null,
        parameters: s.parameters ?? {},
        constraints: s.constraints ?? [],
        variants: s.variants ?? [],
        segments: s.segments ?? [],
      });
    }
    out.push({ id, name: m.name, sortOrder: m.sortOrder, strategies });
  }
  if (problems.length > 0)
    throw invalid(problems[0]?.message ?? 'A milestone strategy is not valid.', problems);
  return out;
}

async function uniqueName<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (sqlState(error) === '23505')
      throw nameExists(`A release plan template named "${name}" already exists.`);
    throw error;
  }
}

export const getTemplates = (deps: Deps) => listTemplates(deps.database.db);

export async function getTemplate(deps: Deps, id: string) {
  const template = await findTemplate(deps.database.db, id);
  if (!template) throw unknownTemplate(id);
  return template;
}

export function createTemplate(deps: Deps, input: TemplateInput, by: Principal) {
  return uniqueName(input.name, () =>
    transaction(deps.database.db, async (tx) => {
      const id = randomUUID();
      const milestones = await milestonesOf(tx, input.milestones);
      const t = {
        id,
        name: input.name,
        description: input.description ?? null,
        userId: userIdOf(by),
        now: deps.now(),
      };
      await insertTemplate(tx, t, milestones);
      const created = (await findTemplate(tx, id)) as Template;
      await record(tx, 'release-plan-template-created', by, {}, created);
      return created;
    }),
  );
}

export function changeTemplate(deps: Deps, id: string, input: TemplateInput, by: Principal) {
  return uniqueName(input.name, () =>
    transaction(deps.database.db, async (tx) => {
      const before = await findTemplate(tx, id, true);
      if (!before) throw unknownTemplate(id);
      const milestones = await milestonesOf(tx, input.milestones);
      await replaceTemplate(tx, id, { name: input.name, description: input.description ?? null }, milestones);
      const after = (await findTemplate(tx, id)) as Template;
      await record(tx, 'release-plan-template-updated', by, {}, after, before);
      return after;
    }),
  );
}

export function retireTemplate(deps: Deps, id: string, how: 'archive' | 'delete', by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const before = await findTemplate(tx, id, true);
    if (!before) throw unknownTemplate(id);
    if (how === 'archive') {
      await archiveTemplate(tx, id, deps.now());
      await record(
        tx,
        'release-plan-template-archived',
        by,
        {},
        { ...before, archivedAt: deps.now().toISOString() },
        before,
      );
    } else {
      // Plans made from it keep their own milestones (their template id becomes null).
      await deleteTemplate(tx, id);
      await record(tx, 'release-plan-template-deleted', by, {}, undefined, before);
    }
  });
}

interface Where {
  project: string;
  feature: string;
  environment: string;
}
const eventWhere = (w: Where) => ({ project: w.project, featureName: w.feature, environment: w.environment });

async function requireFlagEnvironment(db: Db, w: Where) {
  if (!(await flagEnvironmentIn(db, w.project, w.feature, w.environment))) {
    throw notFound(
      `Could not find flag "${w.feature}" with environment "${w.environment}" in project "${w.project}".`,
    );
  }
}

export async function getPlans(deps: Deps, w: Where) {
  await requireFlagEnvironment(deps.database.db, w);
  return plansOf(deps.database.db, w);
}

export async function getPlan(deps: Deps, w: Where, id: string) {
  const plan = await findPlan(deps.database.db, w, id);
  if (!plan) throw unknownPlan(id);
  return plan;
}

export function addPlan(deps: Deps, w: Where, templateId: string, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    await requireFlagEnvironment(tx, w);
    const template = await findTemplate(tx, templateId);
    if (!template || template.archivedAt) throw unknownTemplate(templateId);
    const id = randomUUID();
    const milestones = template.milestones.map((m) => {
      const copy = randomUUID();
      return {
        ...m,
        id: copy,
        strategies: m.strategies.map((s) => ({ ...s, id: randomUUID(), milestoneId: copy })),
      };
    });
    try {
      await insertPlan(
        tx,
        {
          id,
          templateId,
          feature: w.feature,
          environment: w.environment,
          name: template.name,
          description: template.description,
          userId: userIdOf(by),
          now: deps.now(),
        },
        milestones,
      );
    } catch (error) {
      if (sqlState(error) === '23505') {
        throw new AppError(
          'ConflictError',
          `Flag "${w.feature}" already has a release plan in "${w.environment}".`,
        );
      }
      throw error;
    }
    const plan = (await findPlan(tx, w, id)) as Plan;
    await record(tx, 'release-plan-added', by, eventWhere(w), plan);
    return plan;
  });
}

/** Changes that take the plan's strategies off the flag environment. */
async function removalOf(tx: Db, w: Where, planId: string): Promise<Change[]> {
  return (await planStrategyIds(tx, planId)).map((id) => ({
    action: 'deleteStrategy' as const,
    project: w.project,
    feature: w.feature,
    environment: w.environment,
    payload: { id },
  }));
}

export function removePlan(ctx: PlanContext, w: Where, id: string, by: Principal) {
  return transaction(ctx.deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, id, true);
    if (!plan) throw unknownPlan(id);
    await ctx.changes.applyIn(tx, await removalOf(tx, w, id), { deps: ctx.deps, by });
    await deletePlan(tx, id);
    await record(tx, 'release-plan-removed', by, eventWhere(w), undefined, plan);
  });
}

/**
 * Starts the milestone in the caller's transaction (the plan locked): one change list that takes
 * the plan's strategies off and puts the milestone's on, then the plan's record of them.
 */
export async function startMilestoneIn(
  ctx: PlanContext,
  tx: Db,
  w: Where,
  plan: Plan,
  milestoneId: string,
  by: Principal,
) {
  const milestone = plan.milestones.find((m) => m.id === milestoneId);
  if (!milestone) throw notFound(`Release plan "${plan.id}" has no milestone "${milestoneId}".`);
  const removal = await removalOf(tx, w, plan.id);
  const additions: Change[] = milestone.strategies.map((s) => ({
    action: 'addStrategy',
    project: w.project,
    feature: w.feature,
    environment: w.environment,
    payload: {
      name: s.name,
      title: s.title,
      sortOrder: s.sortOrder,
      parameters: s.parameters,
      constraints: s.constraints as never,
      variants: s.variants as never,
      segments: s.segments,
    },
  }));
  const results = (await ctx.changes.applyIn(tx, [...removal, ...additions], {
    deps: ctx.deps,
    by,
  })) as unknown[];
  const added = results.slice(removal.length).map((r) => (r as { id: string }).id);
  await activate(tx, plan.id, milestoneId, added, ctx.deps.now());
  await record(tx, 'release-plan-milestone-started', by, eventWhere(w), {
    planId: plan.id,
    milestoneId,
    milestoneName: milestone.name,
  });
}

export function startMilestone(
  ctx: PlanContext,
  w: Where,
  planId: string,
  milestoneId: string,
  by: Principal,
) {
  return transaction(ctx.deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, planId, true);
    if (!plan) throw unknownPlan(planId);
    await startMilestoneIn(ctx, tx, w, plan, milestoneId, by);
  });
}

/** The plan on this flag environment that holds the milestone, locked. */
async function planHolding(tx: Db, w: Where, milestoneId: string) {
  const plans = await plansOf(tx, w);
  const plan = plans.find((p) => p.milestones.some((m) => m.id === milestoneId));
  if (!plan) throw notFound(`No release plan of this flag environment has milestone "${milestoneId}".`);
  return (await findPlan(tx, w, plan.id, true)) as Plan;
}

export function changeProgression(
  deps: Deps,
  w: Where,
  sourceId: string,
  body: { targetMilestone: string; transitionCondition: { intervalMinutes: number } },
  by: Principal,
) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await planHolding(tx, w, sourceId);
    const source = plan.milestones.find((m) => m.id === sourceId);
    if (body.targetMilestone === sourceId || !plan.milestones.some((m) => m.id === body.targetMilestone)) {
      throw invalid('The target must be another milestone of the same plan.', [
        {
          path: '/body/targetMilestone',
          message: `Plan "${plan.id}" has no other milestone "${body.targetMilestone}".`,
        },
      ]);
    }
    await setProgression(tx, sourceId, body.targetMilestone, body.transitionCondition.intervalMinutes);
    const type = source?.transitionCondition
      ? 'milestone-progression-updated'
      : 'milestone-progression-created';
    await record(tx, type, by, eventWhere(w), { planId: plan.id, sourceMilestone: sourceId, ...body });
  });
}

export function removeProgression(deps: Deps, w: Where, sourceId: string, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await planHolding(tx, w, sourceId);
    const source = plan.milestones.find((m) => m.id === sourceId);
    if (!source?.transitionCondition) throw notFound(`Milestone "${sourceId}" has no progression.`);
    await setProgression(tx, sourceId, null, null);
    await record(tx, 'milestone-progression-deleted', by, eventWhere(w), undefined, {
      planId: plan.id,
      sourceMilestone: sourceId,
      transitionCondition: source.transitionCondition,
    });
  });
}

/** Pauses or resumes the plan's progression (its active milestone's). */
export function pauseProgression(
  deps: Deps,
  w: Where,
  planId: string,
  paused: boolean,
  by: Principal,
  reason?: string,
) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, planId, true);
    if (!plan) throw unknownPlan(planId);
    if (!plan.activeMilestoneId) throw invalid('The plan has no started milestone to pause or resume.');
    await setPaused(tx, plan.activeMilestoneId, paused ? deps.now() : null);
    await record(
      tx,
      paused ? 'release-plan-progressions-paused' : 'release-plan-progressions-resumed',
      by,
      eventWhere(w),
      { planId, milestoneId: plan.activeMilestoneId, ...(reason && { reason }) },
    );
  });
}

/** Sets the plan's safeguard (one per plan); records `safeguard-changed`. */
export function setSafeguard(deps: Deps, w: Where, planId: string, input: SafeguardInput, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, planId, true);
    if (!plan) throw unknownPlan(planId);
    const safeguard = await putSafeguard(
      tx,
      planId,
      plan.safeguards[0]?.id ?? randomUUID(),
      input,
      deps.now(),
    );
    await record(tx, 'safeguard-changed', by, eventWhere(w), safeguard, plan.safeguards[0]);
    return safeguard;
  });
}

export function removeSafeguard(deps: Deps, w: Where, planId: string, id: string, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, planId, true);
    if (!plan) throw unknownPlan(planId);
    const removed = await deleteSafeguard(tx, planId, id);
    if (!removed) throw notFound(`Release plan "${planId}" has no safeguard "${id}".`);
    await record(tx, 'safeguard-deleted', by, eventWhere(w), undefined, removed);
  });
}
