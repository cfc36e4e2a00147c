export { instanceRoutes } from './ui-config.routes.js';
export { UiConfigSchema } from './ui-config.schemas.js';
