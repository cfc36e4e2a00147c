export { answerFrontendEarly } from './frontend-api.early.js';
export { frontendApiRoutes } from './frontend-api.routes.js';
export { SDK_STALENESS_MS } from './frontend-api.service.js';
