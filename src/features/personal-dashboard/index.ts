export { personalDashboardRoutes } from './personal-dashboard.routes.js';
