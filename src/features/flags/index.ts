export { flagRoutes } from './flags.routes.js';
