// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { StrategyDefinitionSchema } from './strategy-definitions.schemas.js';
export { strategyDefinitionRoutes } from './strategy-definitions.routes.js';
export {
  dropCustomStrategyTypes,
  type ImportedStrategyType,
  importStrategyTypes,
} from './strategy-definitions.batch.service.js';
