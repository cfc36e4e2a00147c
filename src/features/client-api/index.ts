export { deleteApplication, lockApplication, upsertApplication } from './applications.store.js';
export { acceptsGzip, clientFlag, matchesEtag } from './client-api.payload.js';
export { clientApiRoutes } from './client-api.routes.js';
export { clientFeatures, databaseReporting, recordMetrics, registerClient } from './client-api.service.js';
export { answerNotModifiedEarly } from './not-modified.js';
export { deleteExpiredClientReports, startRetentionJob } from './retention.service.js';
export {
  projectsKey,
  type Registration,
  type SdkPorts,
  type SdkReporting,
  type SdkType,
  sdkScope,
  type UsageReport,
} from './sdk-ports.js';
