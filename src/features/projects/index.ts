// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { DefaultStrategySchema, PROJECT_ID_PATTERN } from './projects.schemas.js';
export { projectRoutes } from './projects.routes.js';
export { dropProjects, importProjects } from './projects.batch.service.js';
export type { ImportedProject } from './projects.batch.store.js';
export { health, onboardingStatus } from './overview.service.js';
export { recordProjectHealth, startHealthHistoryJob } from './health-history.service.js';
