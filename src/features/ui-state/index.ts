// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { FeedbackSchema, SplashSchema } from './ui-state.schemas.js';
export { uiStateRoutes } from './ui-state.routes.js';
export { uiStateOf } from './ui-state.service.js';
