export { releasePlanChanges } from './release-plans.changes.js';
export { progressReleasePlans, startReleasePlanJob } from './release-plans.progress.js';
export { releasePlanRoutes } from './release-plans.routes.js';
export { plansOfFlag } from './release-plans.store.js';
