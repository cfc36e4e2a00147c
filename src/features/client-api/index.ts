export { clientApiRoutes } from './client-api.routes.js';
