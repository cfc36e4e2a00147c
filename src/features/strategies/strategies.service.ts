import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { archivedFlag } from '../flag-rows/index.js';
import type { StrategyDraft } from './strategies.input.js';
import type { Strategy } from './strategies.schemas.js';
import {
  type FlagEnvironmentState,
  findFlagEnvironment,
  findStrategy,
  insertStrategy,
  listStrategies,
  listStrategiesToCopy,
  lockFlagEnvironment,
  type StrategyRow,
  setFlagEnvironmentEnabledRecorded,
  setStrategySegments,
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

export const eventBase = (ref: FlagEnvironmentRef, by: Principal) => ({
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
export async function offWithoutEnabledStrategy(
  tx: Db,
  ref: FlagEnvironmentRef,
  enabled: boolean,
  by: Principal,
) {
  if (!enabled) return;
  const left = await listStrategies(tx, ref.featureName, ref.environment);
  if (left.some((s) => !s.disabled)) return;
  await setFlagEnvironmentEnabledRecorded(tx, ref, false, by);
}

export async function getStrategies(deps: Deps, ref: FlagEnvironmentRef): Promise<Strategy[]> {
  await resolveFlagEnvironment(deps.database.db, ref, false);
  return (await listStrategies(deps.database.db, ref.featureName, ref.environment)).map(toStrategy);
}

export async function requireStrategy(db: Db, ref: FlagEnvironmentRef, id: string): Promise<StrategyRow> {
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
