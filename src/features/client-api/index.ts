export { deleteApplication, lockApplication, upsertApplication } from './applications.store.js';
export { acceptsGzip, clientFlag, matchesEtag } from './client-api.payload.js';
export { clientApiRoutes } from './client-api.routes.js';
export { clientFeatures, recordMetrics, registerClient } from './client-api.service.js';
export { deleteExpiredClientReports, startRetentionJob } from './retention.service.js';
