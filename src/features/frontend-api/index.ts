export { frontendApiOrigins } from './cors.service.js';
export { frontendApiRoutes } from './frontend-api.routes.js';
