import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Ajv } from 'ajv';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, invalidField, notFound } from '../../platform/http/errors.js';
import { checkIfMatch } from '../../platform/http/etag.js';
import { validationDetails } from '../../platform/http/validation.js';
import { applyJsonPatch, PatchError, type PatchOperation } from '../../platform/json-patch.js';
import { appendEvent } from '../events/index.js';
import { archivedFlag } from '../flag-rows/index.js';
import { finishDraft, type StrategyDraft } from './strategies.input.js';
import {
  type CreateStrategyInput,
  type PatchInput,
  type SortOrderInput,
  type Strategy,
  UpdateStrategyBody,
  type UpdateStrategyInput,
} from './strategies.schemas.js';
import {
  deleteStrategy,
  type FlagEnvironmentState,
  findFlagEnvironment,
  findStrategy,
  insertStrategy,
  listStrategies,
  listStrategiesToCopy,
  lockFlagEnvironment,
  nextSortOrder,
  type StrategyRow,
  setFlagEnvironmentEnabledRecorded,
  setSortOrder,
  setStrategySegments,
  updateStrategy,
} from './strategies.store.js';

export interface FlagEnvironmentRef {
  projectId: string;
  featureName: string;
  environment: string;
}

/** The API shape of a stored strategy (also what events record). */
export const toStrategy = (s: StrategyRow): Strategy => ({
  id: s.id,
  name: s.name,
  title: s.title,
  disabled: s.disabled,
  featureName: s.featureName,
  sortOrder: s.sortOrder,
  segments: s.segments,
  constraints: s.constraints as Strategy['constraints'],
  variants: s.variants as Strategy['variants'],
  parameters: s.parameters,
});

/**
 * The flag environment a request names: 404 for an unknown flag, a flag of another project or an
 * environment the project does not have; 400 for changes to an archived flag (as Unleash).
 */
export async function resolveFlagEnvironment(
  db: Db,
  ref: FlagEnvironmentRef,
  forWrite: boolean,
): Promise<FlagEnvironmentState & { environmentType: string }> {
  return checkFlagEnvironment(ref, forWrite, await findFlagEnvironment(db, ref.featureName, ref.environment));
}

/** Refuses a missing flag (or one of another project), a missing environment, an archived flag. */
export function checkFlagEnvironment<
  S extends Pick<FlagEnvironmentState, 'project' | 'archived' | 'environmentType'>,
>(ref: FlagEnvironmentRef, forWrite: boolean, state: S | undefined): S & { environmentType: string } {
  if (!state || state.project !== ref.projectId) {
    throw notFound(`There's no feature named "${ref.featureName}" in project "${ref.projectId}".`);
  }
  if (state.environmentType === null) {
    throw notFound(
      `The environment "${ref.environment}" does not exist or is not enabled in project "${ref.projectId}".`,
    );
  }
  if (forWrite && state.archived) {
    throw archivedFlag(ref.featureName);
  }
  return { ...state, environmentType: state.environmentType };
}

/**
 * Opens a flag environment for a change, in the lock order of every write to a flag (see lockFlag
 * in the flags slice): the flag's row first, then the flag environment's row (created when the
 * environment came to the project after the flag). Checks the request as resolveFlagEnvironment.
 */
export async function lockForChange(tx: Db, ref: FlagEnvironmentRef) {
  const found = await findFlagEnvironment(tx, ref.featureName, ref.environment, { lock: true });
  const state = checkFlagEnvironment(ref, true, found);
  const { enabled } = await lockFlagEnvironment(tx, ref.featureName, ref.environment);
  return { ...state, enabled };
}

const eventBase = (ref: FlagEnvironmentRef, by: Principal) => ({
  createdBy: by.name,
  createdByUserId: by.userId,
  featureName: ref.featureName,
  project: ref.projectId,
  environment: ref.environment,
});

/**
 * docs/evaluation.md §11, as Unleash: a flag environment that is on and has no enabled strategy
 * left after a strategy is removed or changed is turned off (`feature-environment-disabled`), so
 * deleting or disabling the last strategy never leaves the flag on for everyone.
 */
async function offWithoutEnabledStrategy(tx: Db, ref: FlagEnvironmentRef, enabled: boolean, by: Principal) {
  if (!enabled) return;
  const left = await listStrategies(tx, ref.featureName, ref.environment);
  if (left.some((s) => !s.disabled)) return;
  await setFlagEnvironmentEnabledRecorded(tx, ref, false, by);
}

export async function getStrategies(deps: Deps, ref: FlagEnvironmentRef): Promise<Strategy[]> {
  await resolveFlagEnvironment(deps.database.db, ref, false);
  return (await listStrategies(deps.database.db, ref.featureName, ref.environment)).map(toStrategy);
}

async function requireStrategy(db: Db, ref: FlagEnvironmentRef, id: string): Promise<StrategyRow> {
  const s = await findStrategy(db, id, ref.featureName, ref.environment);
  if (!s)
    throw notFound(
      `Could not find strategy with id ${id} for flag "${ref.featureName}" in "${ref.environment}".`,
    );
  return s;
}

export async function getStrategy(deps: Deps, ref: FlagEnvironmentRef, id: string): Promise<Strategy> {
  await resolveFlagEnvironment(deps.database.db, ref, false);
  return toStrategy(await requireStrategy(deps.database.db, ref, id));
}

/** Stores a new strategy with its segment links; used by create and by enabling an environment. */
export async function addStrategy(
  tx: Db,
  ref: FlagEnvironmentRef,
  draft: StrategyDraft,
  by: Principal,
): Promise<Strategy> {
  const row: StrategyRow = {
    ...draft,
    id: randomUUID(),
    featureName: ref.featureName,
    environment: ref.environment,
  };
  await insertStrategy(tx, row, by.userId);
  // A new strategy has no segment rows yet: nothing to replace when it uses none.
  if (row.segments.length > 0) await setStrategySegments(tx, row.id, row.segments);
  const strategy = toStrategy(row);
  await appendEvent(tx, { ...eventBase(ref, by), type: 'feature-strategy-add', data: strategy });
  return strategy;
}

/**
 * Gives the new flag `to` a copy of every strategy `from` has in the environments `to` has (new
 * ids, segments kept; a `groupId` parameter becomes `groupId` when one is given), each recorded as
 * `feature-strategy-add`, as cloning a flag does. Runs in the caller's transaction.
 */
export async function copyStrategies(
  tx: Db,
  from: string,
  to: { projectId: string; featureName: string },
  groupId: string | undefined,
  by: Principal,
): Promise<void> {
  for (const s of await listStrategiesToCopy(tx, from, to.featureName)) {
    const parameters = { ...s.parameters };
    if (groupId !== undefined && 'groupId' in parameters) parameters.groupId = groupId;
    const ref = { ...to, environment: s.environment };
    await addStrategy(tx, ref, { ...s, parameters }, by);
  }
}

export async function createStrategy(
  deps: Deps,
  ref: FlagEnvironmentRef,
  input: CreateStrategyInput,
  by: Principal,
): Promise<Strategy> {
  return transaction(deps.database.db, async (tx) => {
    const state = await lockForChange(tx, ref);
    const ctx = { flag: ref.featureName, defaultStickiness: state.defaultStickiness };
    const draft = await finishDraft(
      tx,
      input,
      ctx,
      await nextSortOrder(tx, ref.featureName, ref.environment),
    );
    return addStrategy(tx, ref, draft, by);
  });
}

/** Absent properties keep their values; null title clears it, null disabled means false. */
function merge(before: StrategyRow, input: UpdateStrategyInput): CreateStrategyInput {
  return {
    name: input.name ?? before.name,
    title: input.title === undefined ? before.title : input.title,
    disabled: input.disabled ?? (input.disabled === null ? false : before.disabled),
    sortOrder: input.sortOrder ?? before.sortOrder,
    parameters: input.parameters ?? before.parameters,
    constraints: input.constraints ?? (before.constraints as CreateStrategyInput['constraints']),
    variants: input.variants ?? (before.variants as CreateStrategyInput['variants']),
    segments: input.segments ?? before.segments,
  };
}

async function replaceStrategy(
  deps: Deps,
  ref: FlagEnvironmentRef,
  id: string,
  change: (before: StrategyRow) => UpdateStrategyInput,
  by: Principal,
  ifMatch?: string,
): Promise<Strategy> {
  return transaction(deps.database.db, async (tx) => {
    const state = await lockForChange(tx, ref);
    const before = await requireStrategy(tx, ref, id);
    // Read after the flag's lock: of writers holding one ETag, only the first to lock passes.
    await checkIfMatch(ifMatch, () => toStrategy(before));
    const ctx = { flag: ref.featureName, defaultStickiness: state.defaultStickiness };
    const draft = await finishDraft(tx, merge(before, change(before)), ctx, before.sortOrder);
    const after: StrategyRow = { ...before, ...draft };
    await updateStrategy(tx, after);
    // Both lists ascending and without repeats (stored order, finishDraft): unchanged links (the
    // usual case, a rollout or constraint change) are not rewritten.
    if (!isDeepStrictEqual(before.segments, after.segments))
      await setStrategySegments(tx, id, after.segments);
    await appendEvent(tx, {
      ...eventBase(ref, by),
      type: 'feature-strategy-update',
      data: toStrategy(after),
      preData: toStrategy(before),
    });
    await offWithoutEnabledStrategy(tx, ref, state.enabled, by);
    return toStrategy(after);
  });
}

export const updateStrategyById = (
  deps: Deps,
  ref: FlagEnvironmentRef,
  id: string,
  input: UpdateStrategyInput,
  by: Principal,
  ifMatch?: string,
) => replaceStrategy(deps, ref, id, () => input, by, ifMatch);

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const checkPatched = ajv.compile(UpdateStrategyBody);

/** Applies a JSON Patch to the strategy document; the result must be a valid strategy. */
export const patchStrategy = (
  deps: Deps,
  ref: FlagEnvironmentRef,
  id: string,
  ops: PatchInput,
  by: Principal,
  ifMatch?: string,
) =>
  replaceStrategy(
    deps,
    ref,
    id,
    (before) => {
      let patched: unknown;
      try {
        patched = applyJsonPatch(toStrategy(before), ops as PatchOperation[], {
          maxSize: deps.config.BODY_LIMIT,
        });
      } catch (error) {
        if (error instanceof PatchError) throw invalidField(`/body/${error.index}`, error.message);
        throw error;
      }
      if (
        typeof patched !== 'object' ||
        patched === null ||
        Array.isArray(patched) ||
        !checkPatched(patched)
      ) {
        const details = validationDetails(checkPatched.errors ?? [], 'body').map((d) => ({
          ...d,
          message: `The patched strategy is invalid: ${d.message}`,
        }));
        throw invalid('The patched strategy is invalid.', details.length ? details : undefined);
      }
      return patched as UpdateStrategyInput;
    },
    by,
    ifMatch,
  );

export async function removeStrategy(
  deps: Deps,
  ref: FlagEnvironmentRef,
  id: string,
  by: Principal,
  ifMatch?: string,
) {
  await transaction(deps.database.db, async (tx) => {
    const { enabled } = await lockForChange(tx, ref);
    const before = await requireStrategy(tx, ref, id);
    await checkIfMatch(ifMatch, () => toStrategy(before));
    await deleteStrategy(tx, id);
    // Unleash records the environment's `-disabled` before the removal.
    await offWithoutEnabledStrategy(tx, ref, enabled, by);
    await appendEvent(tx, {
      ...eventBase(ref, by),
      type: 'feature-strategy-remove',
      preData: toStrategy(before),
    });
  });
}

const orderOf = (list: StrategyRow[]) => list.map((s) => ({ strategyId: s.id, sortOrder: s.sortOrder }));

/** Sets the sort order of the listed strategies; every id must be a strategy of this flag environment. */
export async function setStrategySortOrder(
  deps: Deps,
  ref: FlagEnvironmentRef,
  input: SortOrderInput,
  by: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    await lockForChange(tx, ref);
    const before = await listStrategies(tx, ref.featureName, ref.environment);
    const ids = new Set(before.map((s) => s.id));
    const unknown = input.findIndex((o) => !ids.has(o.id));
    if (unknown >= 0) {
      throw notFound(
        `Could not find strategy with id ${input[unknown]?.id} for flag "${ref.featureName}" in "${ref.environment}".`,
      );
    }
    for (const { id, sortOrder } of input) await setSortOrder(tx, id, sortOrder);
    const after = await listStrategies(tx, ref.featureName, ref.environment);
    await appendEvent(tx, {
      ...eventBase(ref, by),
      type: 'strategy-order-changed',
      data: orderOf(after),
      preData: orderOf(before),
    });
  });
}
