import { type Db, JOB_LEASES, transaction, tryJobLease, underSavepoint } from '../../platform/db/index.js';
import { isDatabaseUnavailable, translateDbError } from '../../platform/db/pg-errors.js';
import { SYSTEM } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { repeatEvery } from '../../platform/jobs.js';
import { eventWhere, type PlanContext, record } from './release-plans.service.js';
import {
  answersSince,
  dueProgressions,
  findPlan,
  guardedPlans,
  markProgressionExecuted,
  setPaused,
} from './release-plans.store.js';

/** Progressions one round makes (the rest wait for the next round). */
const ROUND = 50;

/**
 * One round of automatic progression: each plan whose active milestone's time has come starts the
 * milestone its progression names, as the system (which skips no change request: where one is
 * required, the plan pauses, saying so). A plan whose flag is archived, or off in the plan's
 * environment, pauses instead (`release-plan-progressions-paused` with the reason) until someone
 * resumes it. Of several instances one runs a round (a lease); each plan under its own savepoint.
 * Returns how many milestones it started.
 */
export async function progressReleasePlans(ctx: PlanContext): Promise<number> {
  return transaction(ctx.deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.releasePlanProgressions))) return 0;
    const now = ctx.deps.now();
    await checkSafeguards(tx, now);
    let started = 0;
    for (const due of await dueProgressions(tx, now, ROUND)) {
      const w = { project: due.project, feature: due.feature, environment: due.environment };
      const pause = async (reason: string) => {
        await setPaused(tx, due.milestoneId, now);
        await record(tx, 'release-plan-progressions-paused', SYSTEM, eventWhere(w), {
          planId: due.planId,
          milestoneId: due.milestoneId,
          reason,
        });
      };
      if (due.archivedAt) {
        await pause('The flag is archived.');
        continue;
      }
      if (!due.enabled) {
        await pause(`The flag is off in "${due.environment}".`);
        continue;
      }
      try {
        await underSavepoint(tx, async () => {
          // Made against the plan with the due milestone active: a person who started another
          // milestone meanwhile is not overridden (the change conflicts; the plan pauses, saying so).
          const plan = await findPlan(tx, w, due.planId);
          const snapshot = plan && { ...plan, activeMilestoneId: due.milestoneId };
          const start = {
            action: 'startMilestone' as const,
            ...w,
            payload: { planId: due.planId, milestoneId: due.target as string, ...(snapshot && { snapshot }) },
          };
          await ctx.changes.applyIn(tx, [start], { deps: ctx.deps, by: SYSTEM });
          await markProgressionExecuted(tx, due.milestoneId, now);
        });
        started += 1;
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        const refused = translateDbError(error);
        await pause(
          refused instanceof AppError && refused.status < 500
            ? refused.message
            : 'Starting the next milestone failed on an internal error (see the service log).',
        );
      }
    }
    return started;
  });
}

const RANGE_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 };

/**
 * Pauses each plan whose safeguard trips: the flag's share of `no` answers (or its exposures) in
 * the plan's environment over the safeguard's range, from the SDKs' metrics, beyond the threshold.
 * With no exposures at all the share is unknown and trips nothing.
 */
async function checkSafeguards(tx: Db, now: Date) {
  for (const g of await guardedPlans(tx)) {
    const { yes, no } = await answersSince(
      tx,
      g.feature,
      g.environment,
      new Date(now.getTime() - RANGE_MS[g.timeRange]),
    );
    const value = g.metric === 'exposures' ? yes + no : yes + no === 0 ? undefined : no / (yes + no);
    if (value === undefined || !(g.operator === '>' ? value > g.threshold : value < g.threshold)) continue;
    const what =
      g.metric === 'exposures' ? `${value} exposures` : `a share of no answers of ${value.toFixed(3)}`;
    await setPaused(tx, g.milestoneId, now);
    await record(tx, 'release-plan-progressions-paused', SYSTEM, eventWhere(g), {
      planId: g.planId,
      milestoneId: g.milestoneId,
      reason: `Safeguard: ${what} in the last ${g.timeRange} is ${g.operator === '>' ? 'above' : 'below'} ${g.threshold}.`,
    });
  }
}

/** Runs the progression job every `intervalMs` until the returned function is called. */
export function startReleasePlanJob(
  ctx: PlanContext,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => progressReleasePlans(ctx), log, 'release plan progressions');
}
