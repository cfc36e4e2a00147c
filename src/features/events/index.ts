export { mayReadEvent, readsWholeLog } from './events.auth.js';
export { appendEvents, insertEventsFrom } from './events.batch.store.js';
export { eventRoutes } from './events.routes.js';
export { appendEvent, changeVersion, type NewEvent, noteUnloggedChange } from './events.store.js';
export { PENDING_TRANSACTIONS, recordedBy } from './late-commits.store.js';
export { flagsWithOwnEventsSince, newestEventId } from './own-events.store.js';
export { deleteEventsBefore } from './retention.store.js';
