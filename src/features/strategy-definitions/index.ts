export {
  dropCustomStrategyTypes,
  type ImportedStrategyType,
  importStrategyTypes,
} from './strategy-definitions.batch.service.js';
export { strategyDefinitionRoutes } from './strategy-definitions.routes.js';
export { StrategyDefinitionSchema } from './strategy-definitions.schemas.js';
