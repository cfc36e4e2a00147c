export { progressReleasePlans, startReleasePlanJob } from './release-plans.progress.js';
export { releasePlanRoutes } from './release-plans.routes.js';
