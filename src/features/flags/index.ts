// biome-ignore-all assist/source/organizeImports: the order is the evaluation order (see below).
// Shapes first: ESM evaluates these modules in the order they are listed, so a slice that reaches
// this index through an import cycle (flags -> strategies -> flags) never meets an uninitialised
// schema. Then the routes and the functions other slices call.
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
export { lockFlag } from './flags.store.js';
