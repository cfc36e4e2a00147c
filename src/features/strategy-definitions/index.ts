export { strategyDefinitionRoutes } from './strategy-definitions.routes.js';
export { StrategyDefinitionSchema } from './strategy-definitions.schemas.js';
