// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { DefaultStrategySchema, PROJECT_ID_PATTERN } from './projects.schemas.js';
export { projectRoutes } from './projects.routes.js';
