export { environmentRoutes } from './environments.routes.js';
export { ENVIRONMENT_NAME_PATTERN, EnvironmentSchema } from './environments.schemas.js';
