export { frontendApiRoutes } from './frontend-api.routes.js';
