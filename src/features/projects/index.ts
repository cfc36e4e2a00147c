export { projectRoutes } from './projects.routes.js';
export { DefaultStrategySchema, PROJECT_ID_PATTERN } from './projects.schemas.js';
