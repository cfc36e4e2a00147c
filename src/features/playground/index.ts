export { playgroundRoutes } from './playground.routes.js';
