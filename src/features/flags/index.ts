export { flagMoreRoutes } from './flags.more-routes.js';
export { flagRoutes } from './flags.routes.js';
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
export { lockFlag } from './flags.store.js';
