export { dropEnvironments, importEnvironments } from './environments.batch.service.js';
export type { ImportedEnvironment } from './environments.batch.store.js';
export { environmentRoutes } from './environments.routes.js';
export { ENVIRONMENT_NAME_PATTERN, EnvironmentSchema } from './environments.schemas.js';
