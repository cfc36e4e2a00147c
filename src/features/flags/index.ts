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
export { findFlagArchivedState, lockFlag, markFlagsSeen } from './flags.store.js';
export { enterLiveStages } from './lifecycle.store.js';
