export { eventRoutes } from './events.routes.js';
export { appendEvent, type NewEvent } from './events.store.js';
export { changeVersion, noteUnloggedChange } from './events.version.js';
