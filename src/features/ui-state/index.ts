export { uiStateRoutes } from './ui-state.routes.js';
export { FeedbackSchema, SplashSchema } from './ui-state.schemas.js';
export { uiStateOf } from './ui-state.service.js';
