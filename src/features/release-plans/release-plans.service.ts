import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorDetail, invalid, nameExists, notFound } from '../../platform/http/errors.js';
import type { Applier } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import type { MilestoneStrategy, Plan } from '../shapes/index.js';
import { finishDraft } from '../strategies/index.js';
import type { MilestoneInput, Template, TemplateInput } from './release-plans.schemas.js';
import {
  archiveTemplate,
  deleteTemplate,
  findPlan,
  findTemplate,
  flagEnvironmentIn,
  insertTemplate,
  listTemplates,
  type NewMilestone,
  plansOf,
  replaceTemplate,
  setPaused,
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
export const unknownPlan = (id: string) =>
  notFound(`Could not find release plan "${id}" on this flag environment.`);
export const userIdOf = (by: Principal) => (by.userId > 0 ? by.userId : null);

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

export interface Where {
  project: string;
  feature: string;
  environment: string;
}
/** Where a plan's event is recorded: its flag environment. */
export const eventWhere = (w: Where) => ({
  project: w.project,
  featureName: w.feature,
  environment: w.environment,
});

export async function requireFlagEnvironment(db: Db, w: Where) {
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

/**
 * Pauses or resumes the progression of the plan's active milestone, in the caller's transaction
 * (the plan locked); records `release-plan-progressions-paused` or `-resumed`.
 */
export async function pauseIn(
  tx: Db,
  deps: Deps,
  w: Where,
  plan: Plan,
  paused: boolean,
  by: Principal,
  reason?: string,
) {
  if (!plan.activeMilestoneId) throw invalid('The plan has no started milestone to pause or resume.');
  await setPaused(tx, plan.activeMilestoneId, paused ? deps.now() : null);
  await record(
    tx,
    paused ? 'release-plan-progressions-paused' : 'release-plan-progressions-resumed',
    by,
    eventWhere(w),
    { planId: plan.id, milestoneId: plan.activeMilestoneId, ...(reason && { reason }) },
  );
}

/**
 * Pauses the plan's progression. Not a configuration change (nothing an SDK sees moves), so it
 * needs no change request: stopping a rollout is always allowed to whoever may change it.
 */
export function pauseProgression(deps: Deps, w: Where, planId: string, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const plan = await findPlan(tx, w, planId, true);
    if (!plan) throw unknownPlan(planId);
    await pauseIn(tx, deps, w, plan, true, by);
  });
}
