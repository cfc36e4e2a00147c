export { clientDeltaRoutes } from './client-delta.routes.js';
