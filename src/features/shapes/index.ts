/**
 * Wire shapes several slices share (a leaf: it imports no slice). A slice that both serves a shape
 * and needs one of another slice takes it from here, so slices never import each other in a circle.
 */
export {
  FlagEnvironmentParams,
  FlagNameParam,
  FlagParams,
  ProjectIdParam,
  ProjectParams,
} from './params.schemas.js';
export {
  ConstraintSchema,
  FlagVariantSchema,
  PayloadBody,
  StrategySchema,
  StrategyVariantSchema,
} from './strategy.schemas.js';
export { TagSchema } from './tag.schemas.js';
