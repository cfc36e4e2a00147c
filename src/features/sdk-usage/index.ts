export { deleteApplication, lockApplication, upsertApplication } from './applications.store.js';
export { deleteExpiredClientReports, startRetentionJob } from './retention.service.js';
export { databaseReporting, recordMetrics, registerClient } from './sdk-usage.service.js';
