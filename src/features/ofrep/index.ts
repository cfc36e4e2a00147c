export { ofrepRoutes } from './ofrep.routes.js';
