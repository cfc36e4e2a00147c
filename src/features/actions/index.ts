export { actionRoutes } from './actions.routes.js';
export { runActionSets, startActionsJob } from './actions.run.js';
