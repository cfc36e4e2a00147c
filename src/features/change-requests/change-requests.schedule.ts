import { JOB_LEASES, transaction, tryJobLease, underSavepoint } from '../../platform/db/index.js';
import { translateDbError } from '../../platform/db/pg-errors.js';
import { SYSTEM } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { repeatEvery } from '../../platform/jobs.js';
import { principalOfUser } from '../users/index.js';
import { applyChanges, type Ctx, mayEverywhere, reachOf, record } from './change-requests.service.js';
import { dueRequests, findRequest, setScheduleOutcome, setState } from './change-requests.store.js';

/** How many due requests one round applies (the rest wait for the next round). */
const ROUND = 20;

/**
 * One round of the scheduler: every Scheduled request whose time has come is applied as the
 * person who scheduled it, with their permissions now. Of several instances on one database only
 * one runs a round (a transaction lease); each request applies under its own savepoint, so one
 * that fails leaves the others. Outcomes, each with its event:
 * - applied: `change-request-scheduled-application-success`, state Applied;
 * - that person is gone or may no longer apply there: suspended (`change-request-schedule-suspended`);
 * - a change cannot apply (its target moved, a rule refuses it): failed, with the reason
 *   (`change-request-scheduled-application-failure`). Suspended and failed requests stay
 *   Scheduled until rescheduled, applied now or cancelled.
 * Returns how many requests it applied.
 */
export async function applyDueChangeRequests(ctx: Ctx): Promise<number> {
  return transaction(ctx.deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.scheduledChangeRequests))) return 0;
    const now = ctx.deps.now();
    let applied = 0;
    for (const due of await dueRequests(tx, now, ROUND)) {
      const r = await findRequest(tx, due.project, due.id, true);
      if (r?.state !== 'Scheduled' || r.scheduleStatus !== 'pending') continue;
      const by = await scheduler(tx, r.scheduledByUserId);
      const missing = by && mayEverywhere(by, 'APPLY_CHANGE_REQUEST', await reachOf(tx, r));
      if (!by || missing) {
        const reason = by
          ? `${by.name} may no longer apply change requests in "${missing?.environment}" of project "${missing?.project}".`
          : 'The person who scheduled it is no longer a user.';
        await setScheduleOutcome(tx, r.id, 'suspended', reason);
        await record(tx, 'change-request-schedule-suspended', r, by ?? SYSTEM, { reason });
        continue;
      }
      try {
        await underSavepoint(tx, async () => {
          await applyChanges(ctx, tx, r, by);
          await setState(tx, r.id, 'Applied', now);
          await record(tx, 'change-request-scheduled-application-success', r, by);
        });
        applied += 1;
      } catch (error) {
        // Rolled back to its savepoint: whatever stopped it (a change that cannot apply, or a bug),
        // this request fails and the round goes on. A database that is away fails the round at the
        // next statement, and the request waits.
        const refused = translateDbError(error);
        const reason =
          refused instanceof AppError && refused.status < 500
            ? refused.message
            : 'Applying it failed on an internal error (see the service log).';
        await setScheduleOutcome(tx, r.id, 'failed', reason);
        await record(tx, 'change-request-scheduled-application-failure', r, by, { reason });
      }
    }
    return applied;
  });
}

const scheduler = (db: Ctx['deps']['database']['db'], userId: number | null) =>
  userId === null ? Promise.resolve(undefined) : principalOfUser(db, userId);

/** Runs the scheduler every `intervalMs` until the returned function is called. */
export function startChangeRequestScheduler(
  ctx: Ctx,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => applyDueChangeRequests(ctx), log, 'scheduled change requests');
}
