import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import { notFound } from '../../platform/http/errors.js';
import { type ChangeHandlers, type ChangeOf, checkSnapshot, pathOf } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import type { CreateStrategyInput, UpdateStrategyInput } from '../shapes/index.js';
import { finishDraft } from './strategies.input.js';
import type { Strategy } from './strategies.schemas.js';
import {
  addStrategy,
  eventBase,
  lockForChange,
  offWithoutEnabledStrategy,
  requireStrategy,
  toStrategy,
} from './strategies.service.js';
import {
  deleteStrategy,
  listStrategies,
  nextSortOrder,
  type StrategyRow,
  setSortOrder,
  setStrategySegments,
  updateStrategy,
} from './strategies.store.js';

/**
 * Where a flag environment's strategies change, and the events that records: the strategy changes'
 * handlers (the applier of src/features/changes/ runs them in its transaction).
 */

type StrategyChange = ChangeOf<'addStrategy' | 'updateStrategy' | 'deleteStrategy' | 'reorderStrategy'>;

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

async function locked(tx: Db, change: StrategyChange) {
  const ref = pathOf(change);
  return { ref, state: await lockForChange(tx, ref) };
}

const orderOf = (list: StrategyRow[]) => list.map((s) => ({ strategyId: s.id, sortOrder: s.sortOrder }));

export const strategyChanges: Pick<
  ChangeHandlers,
  'addStrategy' | 'updateStrategy' | 'deleteStrategy' | 'reorderStrategy'
> = {
  addStrategy: {
    async apply(tx, change, { by }) {
      const { ref, state } = await locked(tx, change);
      const ctx = { flag: ref.featureName, defaultStickiness: state.defaultStickiness };
      const sortOrder = await nextSortOrder(tx, ref.featureName, ref.environment);
      return addStrategy(tx, ref, await finishDraft(tx, change.payload, ctx, sortOrder), by);
    },
  },

  updateStrategy: {
    current: async (db, change) => toStrategy(await requireStrategy(db, pathOf(change), change.payload.id)),
    async apply(tx, change, { by }): Promise<Strategy> {
      const { ref, state } = await locked(tx, change);
      const { id, snapshot, ...input } = change.payload;
      const before = await requireStrategy(tx, ref, id);
      // After the flag's lock: of two changes made against one state, only the first applies.
      checkSnapshot(snapshot, toStrategy(before), `The strategy ${id}`);
      const ctx = { flag: ref.featureName, defaultStickiness: state.defaultStickiness };
      const draft = await finishDraft(tx, merge(before, input), ctx, before.sortOrder);
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
    },
  },

  deleteStrategy: {
    current: async (db, change) => toStrategy(await requireStrategy(db, pathOf(change), change.payload.id)),
    async apply(tx, change, { by }) {
      const { ref, state } = await locked(tx, change);
      const before = await requireStrategy(tx, ref, change.payload.id);
      checkSnapshot(change.payload.snapshot, toStrategy(before), `The strategy ${change.payload.id}`);
      await deleteStrategy(tx, before.id);
      // Unleash records the environment's `-disabled` before the removal.
      await offWithoutEnabledStrategy(tx, ref, state.enabled, by);
      await appendEvent(tx, {
        ...eventBase(ref, by),
        type: 'feature-strategy-remove',
        preData: toStrategy(before),
      });
      return undefined;
    },
  },

  reorderStrategy: {
    async apply(tx, change, { by }) {
      const { ref } = await locked(tx, change);
      const before = await listStrategies(tx, ref.featureName, ref.environment);
      const ids = new Set(before.map((s) => s.id));
      const unknown = change.payload.find((o) => !ids.has(o.id));
      if (unknown) {
        throw notFound(
          `Could not find strategy with id ${unknown.id} for flag "${ref.featureName}" in "${ref.environment}".`,
        );
      }
      for (const { id, sortOrder } of change.payload) await setSortOrder(tx, id, sortOrder);
      const after = await listStrategies(tx, ref.featureName, ref.environment);
      await appendEvent(tx, {
        ...eventBase(ref, by),
        type: 'strategy-order-changed',
        data: orderOf(after),
        preData: orderOf(before),
      });
      return undefined;
    },
  },
};
