export { applicationRoutes } from './applications.routes.js';
export { ApplicationOverviewSchema } from './applications.schemas.js';
