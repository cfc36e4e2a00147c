export { flagMoreRoutes } from './flags.more-routes.js';
export { flagRoutes } from './flags.routes.js';
export {
  ConstraintSchema,
  FLAG_NAME_PATTERN,
  FlagParams,
  FlagSchema,
  FlagVariantSchema,
  ProjectParams,
  StrategySchema,
  StrategyVariantSchema,
} from './flags.schemas.js';
