import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { translateDbError } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorBody } from '../../platform/http/errors.js';
import { lockFlagsInOrder } from '../flag-rows/index.js';
import type { ChangeResults } from './changes.results.js';
import type { Change, ChangeAction, ChangeOf } from './changes.schemas.js';
import { shadowEvents, shadowedEvents } from './changes.store.js';

export interface ChangeContext {
  deps: Deps;
  by: Principal;
  /**
   * Set when a change request applies the changes (or checks them as it gathers them): they are
   * reviewed there, so the guard lets them through.
   */
  throughChangeRequest?: boolean;
}

/**
 * What a handler is given: the caller's context and the applier itself, for a change made of other
 * changes (a milestone start is strategy deletions and additions), applied in the same transaction
 * with the same context.
 */
export interface HandlerContext extends ChangeContext {
  changes: Applier;
}

/**
 * Whether the caller may make this change directly (the change requests' gate): throws the 403
 * when its environment requires a change request the caller may not skip. Runs before the change
 * is applied or checked, unless a change request applies it (`throughChangeRequest`).
 */
export type ChangeGuard = (db: Db, change: Change, ctx: ChangeContext) => Promise<void>;

/**
 * How one kind of change is applied, written by the slice that owns what it changes. `apply` runs
 * in the applier's transaction: it checks the change against the current state (404, 400, 409 for
 * a conflict with its snapshot), writes through its slice's store and records the change's events.
 */
export interface ChangeHandler<A extends ChangeAction> {
  apply(tx: Db, change: ChangeOf<A>, ctx: HandlerContext): Promise<ChangeResults[A]>;
  /**
   * A faster way to apply this change when it is the only one of its list, outside a transaction
   * (one statement). Answers undefined when it cannot decide alone (a busy flag, a case it does
   * not cover); the applier then runs `apply`. A test holds both ways equal (rows and events).
   */
  alone?(ctx: ChangeContext, change: ChangeOf<A>): Promise<{ result: ChangeResults[A] } | undefined>;
  /**
   * For a kind whose payload carries a `snapshot`: its target as it is now, which a change
   * gathered for later (a change request) is made against when it names none.
   */
  current?(db: Db, change: ChangeOf<A>): Promise<unknown>;
  /** Flags besides its target the change reads and must hold still (a dependency's parent). */
  alsoLocks?(change: ChangeOf<A>): string[];
}

/** One handler per kind: the closed set is checked by the type (app.ts composes the slices'). */
export type ChangeHandlers = { [A in ChangeAction]: ChangeHandler<A> };

type Results<L extends readonly Change[]> = { -readonly [K in keyof L]: ChangeResults[L[K]['action']] };

/** An event a checked change list would record (as the event log would show it, without id and time). */
export interface PreviewEvent {
  type: string;
  featureName: string | null;
  project: string | null;
  environment: string | null;
  data: unknown;
  preData: unknown;
}

/** What applying a change list would do: its events, or the error of the first change that fails. */
export type ChangeCheck =
  | { ok: true; events: PreviewEvent[] }
  | { ok: false; failedChange: number; status: number; error: ErrorBody };

export interface Applier {
  /** Applies the changes in one transaction, all or nothing; their results in order. */
  apply<const L extends readonly Change[]>(deps: Deps, changes: L, by: Principal): Promise<Results<L>>;
  /** As apply, inside a transaction the caller holds (an import, a job that writes more). */
  applyIn<const L extends readonly Change[]>(tx: Db, changes: L, ctx: ChangeContext): Promise<Results<L>>;
  /**
   * What applying would do, without applying anything: nothing is written, no event id is used.
   * `throughChangeRequest`: the changes are gathered in a change request (the guard lets them through).
   */
  check(
    deps: Deps,
    changes: readonly Change[],
    by: Principal,
    throughChangeRequest?: boolean,
  ): Promise<ChangeCheck>;
  /** The change made against its target as it is now, when it names no snapshot (see `current`). */
  pin(db: Db, change: Change): Promise<Change>;
}

/** The error a change list stops at, with the index of the change that raised it. */
class FailedChange extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super('a change failed');
  }
}

/** Thrown to roll a checking transaction back once its events are read. */
class CheckDone extends Error {
  constructor(readonly events: PreviewEvent[]) {
    super('checked');
  }
}

export function createApplier(handlers: ChangeHandlers, guard?: ChangeGuard): Applier {
  const guarded = (db: Db, change: Change, ctx: ChangeContext) =>
    guard && !ctx.throughChangeRequest ? guard(db, change, ctx) : undefined;
  async function run(tx: Db, changes: readonly Change[], ctx: ChangeContext): Promise<unknown[]> {
    // The documented lock order (lockFlag): every flag of the list, by name, before any change.
    const handlerOf = (change: Change) => handlers[change.action] as ChangeHandler<ChangeAction>;
    const locked = changes.flatMap((c) => [
      ...('feature' in c ? [c.feature] : []),
      ...(handlerOf(c).alsoLocks?.(c as never) ?? []),
    ]);
    const flags = [...new Set(locked)].sort();
    if (flags.length > 1) await lockFlagsInOrder(tx, flags);
    const results: unknown[] = [];
    const handlerCtx = { ...ctx, changes: applier };
    for (const [index, change] of changes.entries()) {
      try {
        await guarded(tx, change, ctx);
        results.push(await handlerOf(change).apply(tx, change as never, handlerCtx));
      } catch (error) {
        throw new FailedChange(index, error);
      }
    }
    return results;
  }
  const unwrap = (error: unknown) => (error instanceof FailedChange ? error.error : error);

  const applyIn = async <const L extends readonly Change[]>(tx: Db, changes: L, ctx: ChangeContext) => {
    try {
      return (await run(tx, changes, ctx)) as unknown as Results<L>;
    } catch (error) {
      throw unwrap(error);
    }
  };

  const applier: Applier = {
    async apply(deps, changes, by) {
      const ctx = { deps, by };
      const [only] = changes;
      if (changes.length === 1 && only) {
        const handler = handlers[only.action] as ChangeHandler<ChangeAction>;
        if (handler.alone) await guarded(deps.database.db, only, ctx);
        const done = await handler.alone?.(ctx, only as never);
        if (done) return [done.result] as unknown as Results<typeof changes>;
      }
      return transaction(deps.database.db, (tx) => applyIn(tx, changes, ctx));
    },
    applyIn,
    async check(deps, changes, by, throughChangeRequest = false) {
      try {
        await transaction(deps.database.db, async (tx) => {
          await shadowEvents(tx);
          await run(tx, changes, { deps, by, throughChangeRequest });
          throw new CheckDone(await shadowedEvents(tx));
        });
      } catch (error) {
        if (error instanceof CheckDone) return { ok: true, events: error.events };
        if (!(error instanceof FailedChange)) throw error;
        const refused = translateDbError(error.error);
        // Only what the change itself causes is its outcome: a database that is away is not.
        if (!(refused instanceof AppError) || refused.status >= 500) throw refused;
        return { ok: false, failedChange: error.index, status: refused.status, error: refused.toBody() };
      }
      throw new Error('unreachable: a check always rolls back');
    },
    async pin(db, change) {
      const handler = handlers[change.action] as ChangeHandler<ChangeAction>;
      const payload = (change as { payload?: { snapshot?: unknown } }).payload;
      if (!handler.current || !payload || payload.snapshot !== undefined) return change;
      return {
        ...change,
        payload: { ...payload, snapshot: await handler.current(db, change as never) },
      } as Change;
    },
  };
  return applier;
}
