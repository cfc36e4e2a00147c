// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { ENVIRONMENT_NAME_PATTERN, EnvironmentSchema } from './environments.schemas.js';
export { environmentRoutes } from './environments.routes.js';
