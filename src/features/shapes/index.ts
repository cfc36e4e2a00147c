/**
 * Wire shapes several slices share (a leaf: it imports no slice). A slice that both serves a shape
 * and needs one of another slice takes it from here, so slices never import each other in a circle.
 */
export { CreateDependencyBody, type CreateDependencyInput } from './dependency-body.schemas.js';
export { EdgeTokenList, EdgeTokenSchema, ValidEdgeTokens } from './edge-token.schemas.js';
export { jsonPatchBody } from './json-patch.schemas.js';
export {
  FlagEnvironmentParams,
  FlagNameParam,
  FlagParams,
  ProjectIdParam,
  ProjectParams,
} from './params.schemas.js';
export {
  ImpactMetric,
  type Milestone,
  MilestoneSchema,
  type MilestoneStrategy,
  MilestoneStrategySchema,
  type Plan,
  PlanSchema,
  type Safeguard,
  SafeguardBody,
  type SafeguardInput,
  SafeguardSchema,
  TransitionCondition,
  TriggerCondition,
} from './release-plan.schemas.js';
export {
  type AdminSegment,
  AdminSegmentSchema,
  UpsertSegmentBody,
  type UpsertSegmentInput,
} from './segment.schemas.js';
export {
  ConstraintSchema,
  FlagVariantSchema,
  PayloadBody,
  StrategySchema,
  StrategyVariantSchema,
} from './strategy.schemas.js';
export {
  ConstraintBody,
  type ConstraintBodyInput,
  ConstraintsBody,
  CreateStrategyBody,
  type CreateStrategyInput,
  PatchBody,
  type PatchInput,
  SortOrderBody,
  type SortOrderInput,
  StrategyVariantBody,
  type StrategyVariantInput,
  UpdateStrategyBody,
  type UpdateStrategyInput,
} from './strategy-body.schemas.js';
export { TagSchema } from './tag.schemas.js';
export { VariantInput, type VariantInputType, VariantsBody } from './variant-body.schemas.js';
