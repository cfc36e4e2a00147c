import { randomUUID } from 'node:crypto';
import type { Db } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import { AppError, invalid, notFound } from '../../platform/http/errors.js';
import { type Change, type ChangeHandlers, type ChangeOf, checkSnapshot } from '../changes/index.js';
import { lockFlag } from '../flag-rows/index.js';
import type { Plan } from '../shapes/index.js';
import {
  eventWhere,
  pauseIn,
  record,
  requireFlagEnvironment,
  unknownPlan,
  userIdOf,
} from './release-plans.service.js';
import {
  activate,
  deletePlan,
  deleteSafeguard,
  findPlan,
  findTemplate,
  insertPlan,
  planStrategyIds,
  plansOf,
  putSafeguard,
  setProgression,
} from './release-plans.store.js';

/**
 * Where a release plan on a flag environment changes: the release-plan changes' handlers (ADR 0023),
 * named as Unleash names them in change requests. The routes apply them directly; a change request
 * applies them later, so each checks what it depends on against its snapshot (the plan as the
 * change was made against): only that part, so the changes of one request do not conflict with
 * each other.
 */

/** The release-plan kinds of change. */
type PlanKind =
  | 'addReleasePlan'
  | 'deleteReleasePlan'
  | 'startMilestone'
  | 'changeMilestoneProgression'
  | 'deleteMilestoneProgression'
  | 'resumeMilestoneProgression'
  | 'changeReleasePlanSafeguard'
  | 'deleteReleasePlanSafeguard';
/** A change of an existing plan. */
type PlanChange = ChangeOf<Exclude<PlanKind, 'addReleasePlan'>>;

/** The plan a change names (by its id, or as the holder of its milestone), locked when asked. */
async function planOf(db: Db, change: PlanChange, lock: boolean): Promise<Plan> {
  // The documented lock order: the flag's row before anything of it (here, the plan's row).
  if (lock) await lockFlag(db, change.feature);
  const p = change.payload as { planId?: string; milestoneId?: string; sourceMilestone?: string };
  const milestone = p.milestoneId ?? p.sourceMilestone;
  let id = p.planId;
  if (id === undefined) {
    const holder = (await plansOf(db, change)).find((plan) =>
      plan.milestones.some((m) => m.id === milestone),
    );
    if (!holder) throw notFound(`No release plan of this flag environment has milestone "${milestone}".`);
    id = holder.id;
  }
  const plan = await findPlan(db, change, id, lock);
  if (!plan) throw unknownPlan(id);
  if (milestone !== undefined && !plan.milestones.some((m) => m.id === milestone)) {
    throw notFound(`Release plan "${id}" has no milestone "${milestone}".`);
  }
  return plan;
}

/** What a change depends on, of a plan: compared between its snapshot and the plan now. */
const started = (plan: Plan) => ({
  id: plan.id,
  activeMilestoneId: plan.activeMilestoneId,
  milestones: plan.milestones.map((m) => m.id),
});
const progressionOf = (plan: Plan, milestone: string) => ({
  id: milestone,
  transitionCondition: plan.milestones.find((m) => m.id === milestone)?.transitionCondition ?? null,
});
const safeguardsOf = (plan: Plan) => ({ id: plan.id, safeguards: plan.safeguards });

/** The plan locked, the change's snapshot checked against it through `part`. */
async function against(tx: Db, change: PlanChange, part: (plan: Plan) => unknown): Promise<Plan> {
  const plan = await planOf(tx, change, true);
  const snapshot = change.payload.snapshot;
  if (snapshot) checkSnapshot(part(snapshot), part(plan), `Release plan "${plan.id}"`);
  return plan;
}

const current = (db: Db, change: PlanChange) => planOf(db, change, false);

/** Changes that take the plan's strategies off the flag environment. */
async function removalOf(tx: Db, change: PlanChange, planId: string): Promise<Change[]> {
  return (await planStrategyIds(tx, planId)).map((id) => ({
    action: 'deleteStrategy' as const,
    project: change.project,
    feature: change.feature,
    environment: change.environment,
    payload: { id },
  }));
}

export const releasePlanChanges: Pick<ChangeHandlers, PlanKind> = {
  addReleasePlan: {
    // The milestones are copies (new ids): editing the template later changes no plan.
    async apply(tx, change, { deps, by }) {
      await requireFlagEnvironment(tx, change);
      const { templateId } = change.payload;
      const template = await findTemplate(tx, templateId);
      if (!template || template.archivedAt) {
        throw notFound(`Could not find release plan template "${templateId}".`);
      }
      const id = randomUUID();
      const milestones = template.milestones.map((m) => {
        const copy = randomUUID();
        return {
          ...m,
          id: copy,
          strategies: m.strategies.map((s) => ({ ...s, id: randomUUID(), milestoneId: copy })),
        };
      });
      const plan = {
        id,
        templateId,
        feature: change.feature,
        environment: change.environment,
        name: template.name,
        description: template.description,
        userId: userIdOf(by),
        now: deps.now(),
      };
      try {
        await insertPlan(tx, plan, milestones);
      } catch (error) {
        if (sqlState(error) === '23505') {
          throw new AppError(
            'ConflictError',
            `Flag "${change.feature}" already has a release plan in "${change.environment}".`,
          );
        }
        throw error;
      }
      const added = (await findPlan(tx, change, id)) as Plan;
      await record(tx, 'release-plan-added', by, eventWhere(change), added);
      return added;
    },
  },

  deleteReleasePlan: {
    current,
    async apply(tx, change, ctx) {
      const plan = await against(tx, change, started);
      await ctx.changes.applyIn(tx, await removalOf(tx, change, plan.id), ctx);
      await deletePlan(tx, plan.id);
      await record(tx, 'release-plan-removed', ctx.by, eventWhere(change), undefined, plan);
      return undefined;
    },
  },

  startMilestone: {
    current,
    // One change list: the plan's strategies off, the milestone's on; the flag's own stay.
    async apply(tx, change, ctx) {
      const plan = await against(tx, change, started);
      const milestone = plan.milestones.find((m) => m.id === change.payload.milestoneId);
      if (!milestone)
        throw notFound(`Release plan "${plan.id}" has no milestone "${change.payload.milestoneId}".`);
      const removal = await removalOf(tx, change, plan.id);
      const additions: Change[] = milestone.strategies.map((s) => ({
        action: 'addStrategy',
        project: change.project,
        feature: change.feature,
        environment: change.environment,
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
      const results = (await ctx.changes.applyIn(tx, [...removal, ...additions], ctx)) as unknown[];
      const added = results.slice(removal.length).map((r) => (r as { id: string }).id);
      await activate(tx, plan.id, milestone.id, added, ctx.deps.now());
      await record(tx, 'release-plan-milestone-started', ctx.by, eventWhere(change), {
        planId: plan.id,
        milestoneId: milestone.id,
        milestoneName: milestone.name,
      });
      return undefined;
    },
  },

  changeMilestoneProgression: {
    current,
    async apply(tx, change, { by }) {
      const { sourceMilestone, targetMilestone, transitionCondition } = change.payload;
      const plan = await against(tx, change, (p) => progressionOf(p, sourceMilestone));
      if (targetMilestone === sourceMilestone || !plan.milestones.some((m) => m.id === targetMilestone)) {
        throw invalid('The target must be another milestone of the same plan.', [
          {
            path: '/body/targetMilestone',
            message: `Plan "${plan.id}" has no other milestone "${targetMilestone}".`,
          },
        ]);
      }
      const before = plan.milestones.find((m) => m.id === sourceMilestone)?.transitionCondition;
      await setProgression(tx, sourceMilestone, targetMilestone, transitionCondition.intervalMinutes);
      await record(
        tx,
        before ? 'milestone-progression-updated' : 'milestone-progression-created',
        by,
        eventWhere(change),
        { planId: plan.id, sourceMilestone, targetMilestone, transitionCondition },
      );
      return undefined;
    },
  },

  deleteMilestoneProgression: {
    current,
    async apply(tx, change, { by }) {
      const { sourceMilestone } = change.payload;
      const plan = await against(tx, change, (p) => progressionOf(p, sourceMilestone));
      const transitionCondition = plan.milestones.find((m) => m.id === sourceMilestone)?.transitionCondition;
      if (!transitionCondition) throw notFound(`Milestone "${sourceMilestone}" has no progression.`);
      await setProgression(tx, sourceMilestone, null, null);
      await record(tx, 'milestone-progression-deleted', by, eventWhere(change), undefined, {
        planId: plan.id,
        sourceMilestone,
        transitionCondition,
      });
      return undefined;
    },
  },

  resumeMilestoneProgression: {
    current,
    async apply(tx, change, { deps, by }) {
      const plan = await against(tx, change, started);
      await pauseIn(tx, deps, change, plan, false, by);
      return undefined;
    },
  },

  changeReleasePlanSafeguard: {
    current,
    // One safeguard per plan: this replaces it (its id kept).
    async apply(tx, change, { deps, by }) {
      const plan = await against(tx, change, safeguardsOf);
      const before = plan.safeguards[0];
      const safeguard = await putSafeguard(
        tx,
        plan.id,
        before?.id ?? randomUUID(),
        change.payload.safeguard,
        deps.now(),
      );
      await record(tx, 'safeguard-changed', by, eventWhere(change), safeguard, before);
      return safeguard;
    },
  },

  deleteReleasePlanSafeguard: {
    current,
    async apply(tx, change, { by }) {
      const plan = await against(tx, change, safeguardsOf);
      const removed = await deleteSafeguard(tx, plan.id, change.payload.safeguardId);
      if (!removed)
        throw notFound(`Release plan "${plan.id}" has no safeguard "${change.payload.safeguardId}".`);
      await record(tx, 'safeguard-deleted', by, eventWhere(change), undefined, removed);
      return undefined;
    },
  },
};
