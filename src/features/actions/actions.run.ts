import type { Deps } from '../../deps.js';
import { type Db, JOB_LEASES, transaction, tryJobLease, underSavepoint } from '../../platform/db/index.js';
import { isDatabaseUnavailable, translateDbError } from '../../platform/db/pg-errors.js';
import { allows, type Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { repeatEvery } from '../../platform/jobs.js';
import type { Applier } from '../changes/index.js';
import { pruneSignals, type Signal, takeUnprocessedSignals } from '../signals/index.js';
import { principalOfUser } from '../users/index.js';
import { compileFilters } from './actions.filters.js';
import { ACTION_KINDS, type ActionParams } from './actions.kinds.js';
import type { ActionEvent, ActionSet } from './actions.schemas.js';
import { enabledActionSetsOf, insertRun, pruneRuns, runsSince } from './actions.store.js';

export interface RunContext {
  deps: Deps;
  changes: Applier;
}

/** Signals one round takes (the rest wait for the next round). */
const ROUND = 500;
/** How long one call of the job keeps taking rounds. */
const BUDGET_MS = 2_000;
/** Processed signals and runs are kept this long, and at most this many per endpoint or action set. */
const KEPT_MS = 30 * 24 * 3_600_000;
const KEPT_COUNT = 1000;

/**
 * One round of the actions job: every signal not yet seen, oldest first, against the enabled
 * action sets that listen to its endpoint; each set whose filters hold runs its actions in sort
 * order as its service account, with that account's permissions now, each action through the one
 * applier under its own savepoint (a failing action is recorded and the others still run). Each
 * run is recorded with every action's outcome. Against loops (an action whose change makes a
 * webhook send a signal that starts it again), an action set runs at most
 * `ACTION_SET_RUNS_PER_MINUTE` times a minute; a signal beyond that is recorded as a failed run
 * whose actions did not start. Of several instances on one database one runs a round (a lease);
 * the round is one transaction, so a database lost midway leaves its signals for the next round.
 * Returns how many signals it took.
 */
export async function runActionSets(ctx: RunContext): Promise<number> {
  // Rounds of ROUND signals, each its own transaction, until the backlog is gone or a time budget
  // is spent (the next call goes on): a burst of signals is taken at once, not ROUND a tick.
  const until = Date.now() + BUDGET_MS;
  let taken = 0;
  for (;;) {
    const round = await oneRound(ctx);
    taken += round;
    if (round < ROUND || Date.now() >= until) return taken;
  }
}

async function oneRound(ctx: RunContext): Promise<number> {
  return transaction(ctx.deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.signalActions))) return 0;
    const now = ctx.deps.now();
    const signals = await takeUnprocessedSignals(tx, ROUND, now);
    const ran = signals.length > 0 ? await runOnSignals(ctx, tx, signals, now) : [];
    const before = new Date(now.getTime() - KEPT_MS);
    if (signals.length > 0) {
      await pruneSignals(tx, before, KEPT_COUNT);
      await pruneRuns(tx, before, KEPT_COUNT, ran);
    }
    return signals.length;
  });
}

/** Runs the matching action sets on the signals; the ids of the sets that ran. */
async function runOnSignals(ctx: RunContext, tx: Db, signals: Signal[], now: Date): Promise<number[]> {
  const sets = await enabledActionSetsOf(tx, [...new Set(signals.map((s) => s.sourceId))]);
  if (sets.length === 0) return [];
  const ran = new Set<number>();
  const limit = ctx.deps.config.ACTION_SET_RUNS_PER_MINUTE;
  const runs = await runsSince(
    tx,
    sets.map((s) => s.id),
    new Date(now.getTime() - 60_000),
  );
  const tests = new Map(sets.map((s) => [s.id, compileFilters(s.match.payload)]));
  const actors = new Map<number, Promise<Principal | undefined>>();
  const actorOf = (id: number | null) => {
    if (id === null) return Promise.resolve(undefined);
    const known = actors.get(id);
    if (known) return known;
    const actor = principalOfUser(tx, id);
    actors.set(id, actor);
    return actor;
  };
  for (const signal of signals) {
    for (const set of sets) {
      if (set.match.sourceId !== signal.sourceId || !tests.get(set.id)?.(signal.payload)) continue;
      const count = runs.get(set.id) ?? 0;
      runs.set(set.id, count + 1);
      const actions =
        count >= limit
          ? set.actions.map((a) => ({
              ...a,
              state: 'not started' as const,
              details: `Not started: the action set already ran ${limit} times in the last minute (ACTION_SET_RUNS_PER_MINUTE).`,
            }))
          : await runActions(ctx, tx, set, await actorOf(set.actorId));
      ran.add(set.id);
      await insertRun(tx, {
        actionSetId: set.id,
        signalId: signal.id,
        createdAt: now.toISOString(),
        state: actions.every((a) => a.state === 'success') ? 'success' : 'failed',
        signal,
        actionSet: { ...set, actions },
      });
    }
  }
  return [...ran];
}

async function runActions(
  ctx: RunContext,
  tx: Db,
  set: ActionSet,
  by: Principal | undefined,
): Promise<ActionEvent[]> {
  const outcomes: ActionEvent[] = [];
  for (const action of set.actions) {
    try {
      await runAction(ctx, tx, action, by);
      outcomes.push({ ...action, state: 'success', details: null });
    } catch (error) {
      // A database that is away fails the round: its signals wait for the next one.
      if (isDatabaseUnavailable(error)) throw error;
      const refused = translateDbError(error);
      const details =
        refused instanceof AppError && refused.status < 500
          ? refused.message
          : 'The action failed on an internal error (see the service log).';
      outcomes.push({ ...action, state: 'failed', details });
    }
  }
  return outcomes;
}

async function runAction(
  ctx: RunContext,
  tx: Db,
  action: ActionSet['actions'][number],
  by: Principal | undefined,
) {
  if (!by) throw new AppError('NoAccessError', 'The action set’s service account no longer exists.');
  const kind = Object.hasOwn(ACTION_KINDS, action.action) ? ACTION_KINDS[action.action] : undefined;
  if (!kind) throw new AppError('ValidationError', `Unknown action "${action.action}".`);
  // Checked as strings when the set was saved (actions.service.ts).
  const params = action.executionParams as unknown as ActionParams;
  const { project, environment } = params;
  const missing = kind.permissions.find((p) => !allows(by, p, project, environment));
  if (missing) {
    throw new AppError(
      'NoAccessError',
      `${by.name} lacks the "${missing}" permission in the "${environment}" environment of project "${project}".`,
    );
  }
  await underSavepoint(tx, async () =>
    ctx.changes.applyIn(tx, await kind.changes(tx, params), { deps: ctx.deps, by }),
  );
}

/** Runs the actions job every `intervalMs` until the returned function is called. */
export function startActionsJob(
  ctx: RunContext,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => runActionSets(ctx), log, 'signal actions');
}
