// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export {
  ConstraintSchema,
  FLAG_NAME_PATTERN,
  FlagEnvironmentParams,
  FlagParams,
  FlagSchema,
  FlagVariantSchema,
  PayloadBody,
  ProjectParams,
  StrategySchema,
  StrategyVariantSchema,
} from './flags.schemas.js';
export { flagRoutes } from './flags.routes.js';
export { findFlagArchivedState, lockFlag, lockFlagsInOrder, markFlagsSeen } from './flags.store.js';
export { enterLiveStages, enterLiveStagesFrom } from './lifecycle.store.js';
export { checkPotentialStaleness, reconcileStaleness, startStalenessJob } from './staleness.service.js';
export { FLAG_TYPES } from './flags.schemas.js';
export {
  type BatchFlag,
  enterLiveStagesMany,
  lockAllProjectsAndFlags,
  lockProjectAndFlags,
} from './flags.batch.store.js';
export { dropAllFlags, upsertFlags } from './flags.batch.service.js';
export { favoriteFlags } from './favorites.service.js';
export { type BatchLink, setLinksOfFlags } from './links.batch.store.js';
