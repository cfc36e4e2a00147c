import { JOB_LEASES, transaction, tryJobLease, underSavepoint } from '../../platform/db/index.js';
import { isDatabaseUnavailable, translateDbError } from '../../platform/db/pg-errors.js';
import { SYSTEM } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { repeatEvery } from '../../platform/jobs.js';
import type { Plan } from './release-plans.schemas.js';
import { type PlanContext, record, startMilestoneIn } from './release-plans.service.js';
import { dueProgressions, findPlan, markProgressionExecuted, setPaused } from './release-plans.store.js';

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
    let started = 0;
    for (const due of await dueProgressions(tx, now, ROUND)) {
      const w = { project: due.project, feature: due.feature, environment: due.environment };
      const pause = async (reason: string) => {
        await setPaused(tx, due.milestoneId, now);
        await record(
          tx,
          'release-plan-progressions-paused',
          SYSTEM,
          {
            project: w.project,
            featureName: w.feature,
            environment: w.environment,
          },
          { planId: due.planId, milestoneId: due.milestoneId, reason },
        );
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
          const plan = (await findPlan(tx, w.feature, w.environment, due.planId, true)) as Plan;
          await startMilestoneIn(ctx, tx, w, plan, due.target as string, SYSTEM);
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

/** Runs the progression job every `intervalMs` until the returned function is called. */
export function startReleasePlanJob(
  ctx: PlanContext,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => progressReleasePlans(ctx), log, 'release plan progressions');
}
