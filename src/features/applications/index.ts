// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { ApplicationOverviewSchema } from './applications.schemas.js';
export { applicationRoutes } from './applications.routes.js';
