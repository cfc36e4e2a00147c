import type { Deps } from '../../deps.js';
import { type Db, singleStatement } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { type ChangeHandlers, pathOf } from '../changes/index.js';
import { enterLiveStages } from '../flag-rows/index.js';
import { maintenanceError, refuseInMaintenance } from '../maintenance/index.js';
import type { StrategyDraft } from './strategies.input.js';
import {
  addStrategy,
  checkFlagEnvironment,
  type FlagEnvironmentRef,
  lockForChange,
} from './strategies.service.js';
import {
  existingSegmentIds,
  listStrategies,
  setFlagEnvironmentEnabledRecorded,
  toggleInOneStatement,
} from './strategies.store.js';

interface DefaultStrategy {
  name?: string;
  title?: string | null;
  disabled?: boolean | null;
  parameters?: Record<string, string>;
  constraints?: unknown[];
  variants?: unknown[];
  segments?: number[];
}

/**
 * What enabling an environment without an enabled strategy adds: the project environment's
 * default strategy (a blank groupId becomes the flag name), else flexibleRollout 100% with
 * stickiness `default` and groupId = flag name.
 */
async function defaultDraft(
  tx: Db,
  flag: string,
  stored: unknown,
  sortOrder: number,
): Promise<StrategyDraft> {
  const d = (stored && typeof stored === 'object' ? stored : {}) as DefaultStrategy;
  if (!d.name) {
    return {
      name: 'flexibleRollout',
      title: null,
      disabled: false,
      sortOrder,
      parameters: { rollout: '100', stickiness: 'default', groupId: flag },
      constraints: [],
      variants: [],
      segments: [],
    };
  }
  const parameters = { ...(d.parameters ?? {}) };
  if ('groupId' in parameters || d.name === 'flexibleRollout') {
    if (!parameters.groupId?.trim()) parameters.groupId = flag;
  }
  const known = await existingSegmentIds(tx, d.segments ?? []);
  return {
    name: d.name,
    title: d.title ?? null,
    disabled: false,
    sortOrder,
    parameters,
    constraints: d.constraints ?? [],
    variants: d.variants ?? [],
    segments: [...known].sort((a, b) => a - b),
  };
}

/**
 * Turning a flag on or off in one environment. On: adds the default strategy when no enabled one
 * exists and enters the lifecycle stages (see enterLiveStages). An unchanged state records no
 * enable/disable event.
 */
export const updateEnabledChange: ChangeHandlers['updateEnabled'] = {
  // Nearly every toggle is one statement (one round trip, no BEGIN/COMMIT); the rest (a flag
  // another writer holds or just changed, a missing flag environment row, turning on without an
  // enabled strategy) take `apply`. test/changes.test.ts holds both equal.
  async alone({ deps, by }, change) {
    const ref = pathOf(change);
    const enabled = change.payload.enabled;
    const outcome = await singleStatement(deps.database.db, (db) =>
      toggleInOneStatement(db, ref, enabled, by, deps.now()),
    );
    if (outcome.maintenance) throw maintenanceError();
    if (outcome.busy) return undefined;
    checkFlagEnvironment(ref, true, outcome.flag);
    return outcome.done ? { result: undefined } : undefined;
  },
  async apply(tx, change, { deps, by }) {
    // The toggle routes leave maintenance mode to their handler (the statement above checks it).
    await refuseInMaintenance(tx);
    await setEnabledIn(tx, deps, pathOf(change), change.payload.enabled, by);
    return undefined;
  },
};

async function setEnabledIn(tx: Db, deps: Deps, ref: FlagEnvironmentRef, enabled: boolean, by: Principal) {
  const state = await lockForChange(tx, ref);
  if (enabled) {
    const strategies = await listStrategies(tx, ref.featureName, ref.environment);
    if (!strategies.some((s) => !s.disabled)) {
      // After every strategy of the flag environment (all listed above): as nextSortOrder.
      const sortOrder = strategies.reduce((next, s) => Math.max(next, s.sortOrder + 1), 0);
      await addStrategy(
        tx,
        ref,
        await defaultDraft(tx, ref.featureName, state.defaultStrategy, sortOrder),
        by,
      );
    }
  }
  if (state.enabled === enabled) return;
  await setFlagEnvironmentEnabledRecorded(tx, ref, enabled, by);
  if (enabled) await enterLiveStages(tx, ref.featureName, state.environmentType === 'production', deps.now());
}
