export { clientApiRoutes } from './client-api.routes.js';
export { clientFeatures } from './client-api.service.js';
