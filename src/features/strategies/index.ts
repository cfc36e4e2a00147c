export {
  ConstraintBody,
  ConstraintsBody,
  CreateStrategyBody,
  type CreateStrategyInput,
} from '../shapes/index.js';
export { normaliseVariantWeights, storedVariant, variantWeightProblems } from '../variants/index.js';
export {
  type ConstraintInput,
  constraintsProblems,
  OPERATORS,
  storedConstraint,
} from './constraints.validate.js';
export { updateEnabledChange } from './flag-environments.service.js';
export { rolloutProblems } from './rollout.validate.js';
export { type StrategyDraftWithId, setFlagStrategies, setFlagsEnabled } from './strategies.batch.service.js';
export { strategyChanges } from './strategies.changes.js';
export { finishDraft } from './strategies.input.js';
export { strategyRoutes } from './strategies.routes.js';
export { copyStrategies } from './strategies.service.js';
export {
  activeFlagStrategiesQuery,
  type RawStrategy,
  STRATEGY_COLUMNS,
  type StrategyRow,
  strategySegmentIds,
  toStrategyRow,
} from './strategies.store.js';
