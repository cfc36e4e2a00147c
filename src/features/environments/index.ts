// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { ENVIRONMENT_NAME_PATTERN, EnvironmentSchema } from './environments.schemas.js';
export { environmentRoutes } from './environments.routes.js';
export { dropEnvironments, importEnvironments } from './environments.batch.service.js';
export type { ImportedEnvironment } from './environments.batch.store.js';
