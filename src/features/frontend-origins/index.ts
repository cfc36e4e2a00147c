export { corsSettingRoutes } from './cors.routes.js';
export { FrontendOrigins, frontendApiOrigins } from './cors.service.js';
