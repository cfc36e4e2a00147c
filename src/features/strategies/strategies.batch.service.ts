import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import { enterLiveStagesMany } from '../flag-rows/index.js';
import { type ConstraintInput, storedConstraint } from './constraints.validate.js';
import {
  deleteStrategies,
  enabledStates,
  ensureFlagEnvironments,
  insertStrategies,
  listStrategiesOfFlags,
  setEnabledMany,
  strategyIdsInUse,
  updateStrategies,
} from './strategies.batch.store.js';
import type { StrategyDraft } from './strategies.input.js';
import { toStrategy } from './strategies.service.js';
import type { StrategyRow } from './strategies.store.js';

/** A strategy as a batch wants it stored; `id` is kept when it is free (see setFlagStrategies). */
export type StrategyDraftWithId = StrategyDraft & { id?: string };

export interface FlagsInEnvironment {
  project: string;
  environment: string;
}

/** The part of a strategy that decides what it does: what two strategies must share to be "the same". */
function essence(s: StrategyDraft) {
  return {
    name: s.name,
    title: s.title ?? null,
    disabled: s.disabled ?? false,
    sortOrder: s.sortOrder,
    parameters: s.parameters ?? {},
    constraints: (s.constraints as ConstraintInput[]).map(storedConstraint),
    variants: (s.variants as Record<string, unknown>[]).map((v) => ({
      name: v.name,
      weight: v.weight,
      weightType: v.weightType,
      stickiness: v.stickiness,
      payload: v.payload,
    })),
    segments: [...s.segments].sort((a, b) => a - b),
  };
}

const same = (a: StrategyDraft, b: StrategyDraft) => isDeepStrictEqual(essence(a), essence(b));

/**
 * Gives the flags a row in the environment where they have none (the environment came to the
 * project after them); returns whether each is enabled there. Writes only the missing rows.
 */
async function ensureRows(tx: Db, flags: string[], environment: string): Promise<Map<string, boolean>> {
  const states = await enabledStates(tx, flags, environment);
  const missing = flags.filter((f) => !states.has(f));
  await ensureFlagEnvironments(tx, missing, environment);
  for (const flag of missing) states.set(flag, false);
  return states;
}

/**
 * Makes the strategies of each listed flag in one environment exactly the given lists, in the
 * caller's transaction (which holds the flags' rows). A wanted strategy is paired with a stored one
 * of the same flag environment by id, else with a stored one that is the same in every respect;
 * pairs that differ are updated (`feature-strategy-update`), wanted strategies left over are added
 * (`feature-strategy-add`; with their own id when no strategy has it yet), stored ones left over
 * are removed (`feature-strategy-remove`). A list that is already what is stored changes nothing
 * and records nothing. Reads and writes are a few statements whatever the number of flags.
 * Returns the number of events recorded.
 */
export async function setFlagStrategies(
  tx: Db,
  where: FlagsInEnvironment,
  wanted: Map<string, StrategyDraftWithId[]>,
  by: Principal,
): Promise<number> {
  const flags = [...wanted.keys()];
  await ensureRows(tx, flags, where.environment);
  const stored = new Map<string, StrategyRow[]>();
  for (const s of await listStrategiesOfFlags(tx, flags, where.environment)) {
    const list = stored.get(s.featureName);
    if (list) list.push(s);
    else stored.set(s.featureName, [s]);
  }
  const plans = flags.map((flag) => pair(flag, wanted.get(flag) ?? [], stored.get(flag) ?? []));
  const candidates = plans.flatMap((p) => p.added.flatMap((w) => (w.id ? [w.id] : [])));
  const taken = await strategyIdsInUse(tx, candidates);
  const removed: StrategyRow[] = [];
  const updated: { before: StrategyRow; after: StrategyRow }[] = [];
  const added: StrategyRow[] = [];
  for (const plan of plans) {
    removed.push(...plan.removed);
    for (const [w, before] of plan.paired) {
      if (!same(w, before)) {
        updated.push({ before, after: row(w, before.id, before.featureName, before.environment) });
      }
    }
    for (const w of plan.added) {
      const id = w.id && !taken.has(w.id) ? w.id : randomUUID();
      taken.add(id);
      added.push(row(w, id, plan.flag, where.environment));
    }
  }
  await deleteStrategies(
    tx,
    removed.map((s) => s.id),
  );
  await updateStrategies(
    tx,
    updated.map((u) => u.after),
  );
  await insertStrategies(tx, added, by.userId);

  const event = (type: string, flag: string, data?: unknown, preData?: unknown): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: flag,
    project: where.project,
    environment: where.environment,
    data,
    preData,
  });
  const events: NewEvent[] = [
    ...removed.map((s) => event('feature-strategy-remove', s.featureName, undefined, toStrategy(s))),
    ...updated.map(({ before, after }) =>
      event('feature-strategy-update', after.featureName, toStrategy(after), toStrategy(before)),
    ),
    ...added.map((s) => event('feature-strategy-add', s.featureName, toStrategy(s))),
  ];
  return appendEvents(tx, events);
}

/** The stored row a wanted strategy becomes (a plain literal: these are built by the thousand). */
function row(w: StrategyDraftWithId, id: string, featureName: string, environment: string): StrategyRow {
  return {
    id,
    featureName,
    environment,
    name: w.name,
    title: w.title,
    disabled: w.disabled,
    sortOrder: w.sortOrder,
    parameters: w.parameters,
    constraints: w.constraints,
    variants: w.variants,
    segments: w.segments,
  };
}

function pair(flag: string, wanted: StrategyDraftWithId[], stored: StrategyRow[]) {
  const left = new Map(stored.map((s) => [s.id, s]));
  const paired: [StrategyDraftWithId, StrategyRow][] = [];
  const unmatched: StrategyDraftWithId[] = [];
  for (const w of wanted) {
    const byId = w.id === undefined ? undefined : left.get(w.id);
    if (byId) {
      paired.push([w, byId]);
      left.delete(byId.id);
    } else unmatched.push(w);
  }
  const added: StrategyDraftWithId[] = [];
  for (const w of unmatched) {
    const twin = [...left.values()].find((s) => same(w, s));
    if (twin) {
      paired.push([w, twin]);
      left.delete(twin.id);
    } else added.push(w);
  }
  return { flag, paired, added, removed: [...left.values()] };
}

/**
 * Turns each listed flag on or off in one environment, in the caller's transaction (which holds
 * the flags' rows). Only changes are written and recorded (`feature-environment-enabled` /
 * `-disabled`); enabling enters the lifecycle stages as enabling one flag does. Unlike enabling
 * one flag, no default strategy is added: the caller states the strategies it wants.
 * Returns the number of events recorded.
 */
export async function setFlagsEnabled(
  tx: Db,
  where: FlagsInEnvironment & { production: boolean },
  wanted: Map<string, boolean>,
  by: Principal,
  now: Date,
): Promise<number> {
  const flags = [...wanted.keys()];
  const current = await ensureRows(tx, flags, where.environment);
  const on = flags.filter((f) => wanted.get(f) === true && current.get(f) !== true);
  const off = flags.filter((f) => wanted.get(f) === false && current.get(f) === true);
  await setEnabledMany(tx, on, where.environment, true);
  await setEnabledMany(tx, off, where.environment, false);
  await enterLiveStagesMany(tx, on, where.production, now);
  const event = (flag: string, enabled: boolean): NewEvent => ({
    type: enabled ? 'feature-environment-enabled' : 'feature-environment-disabled',
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: flag,
    project: where.project,
    environment: where.environment,
  });
  return appendEvents(tx, [...on.map((f) => event(f, true)), ...off.map((f) => event(f, false))]);
}
