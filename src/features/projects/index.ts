export { recordProjectHealth, startHealthHistoryJob } from './health-history.service.js';
export { health, onboardingStatus } from './overview.service.js';
export { dropProjects, importProjects } from './projects.batch.service.js';
export type { ImportedProject } from './projects.batch.store.js';
export { projectRoutes } from './projects.routes.js';
export { DefaultStrategySchema, PROJECT_ID_PATTERN } from './projects.schemas.js';
