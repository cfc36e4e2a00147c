export { segmentRoutes } from './segments.routes.js';
