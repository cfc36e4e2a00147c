import type { Deps } from '../../deps.js';
import { type Db, JOB_LEASES, takeJobLease, transaction, tryJobLease } from '../../platform/db/index.js';
import { repeatEvery } from '../../platform/jobs.js';
import { appendEvents } from '../events/index.js';
import { reconcilePotentiallyStale } from './staleness.store.js';

/** What the service records as the author of what it does by itself, as Unleash does. */
const SYSTEM = { createdBy: 'unleash_system_user', createdByUserId: -1337 } as const;

/**
 * One round of the potential-staleness job (docs/adr/0011): flags that passed their type's
 * expected lifetime become potentially stale, each with one `feature-potentially-stale-on` event
 * in the same transaction; flags no longer past it (their type changed) stop being so, silently.
 * Of several instances on one database only one runs a round at a time (a transaction lease);
 * the others skip it. Returns how many flags became potentially stale (0 when skipped).
 */
export async function checkPotentialStaleness(deps: Pick<Deps, 'database' | 'now'>): Promise<number> {
  return transaction(deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.potentialStaleness))) return 0;
    return markPotentiallyStale(tx, deps.now());
  });
}

/**
 * A round of the job inside the caller's transaction (a flag type's lifetime just changed): it
 * waits for a round in progress elsewhere to finish, then does the same work.
 */
export async function reconcileStaleness(tx: Db, now: Date): Promise<number> {
  await takeJobLease(tx, JOB_LEASES.potentialStaleness);
  return markPotentiallyStale(tx, now);
}

async function markPotentiallyStale(tx: Db, now: Date): Promise<number> {
  const changes = await reconcilePotentiallyStale(tx, now);
  const turnedOn = changes.filter((c) => c.potentially_stale);
  // One multi-row insert: an old import can make thousands of flags cross their lifetime at once.
  await appendEvents(
    tx,
    turnedOn.map((flag) => ({
      type: 'feature-potentially-stale-on',
      ...SYSTEM,
      featureName: flag.name,
      project: flag.project,
      data: { name: flag.name, potentiallyStale: true },
    })),
  );
  return turnedOn.length;
}

/** Runs the job every `intervalMs` and once at start, until the returned function is called. */
export function startStalenessJob(
  deps: Pick<Deps, 'database' | 'now'>,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => checkPotentialStaleness(deps), log, 'potential-staleness check');
}
