/**
 * A flag's own rows as every slice that changes a flag needs them (a leaf: it imports no slice):
 * the flag row and its lock, which opens every write to a flag (lockFlag: the lock order), and the
 * lifecycle stages (`feature_lifecycles`, owned here) that such a change enters.
 */
export { archivedFlag } from './flag-rows.errors.js';
export {
  type FlagRow,
  findFlagArchivedState,
  flagColumns,
  lockFlag,
  lockFlagsInOrder,
  toFlagRow,
} from './flag-rows.store.js';
export {
  deleteStage,
  enterLiveStages,
  enterLiveStagesFrom,
  enterLiveStagesMany,
  listStages,
  type Stage,
  upsertStage,
} from './lifecycle.store.js';
