export { dependencyRoutes } from './dependencies.routes.js';
