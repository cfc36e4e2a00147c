export { changeRequestGate, gateDirectWrite } from './change-requests.guard.js';
export { changeRequestRoutes } from './change-requests.routes.js';
export { applyDueChangeRequests, startChangeRequestScheduler } from './change-requests.schedule.js';
