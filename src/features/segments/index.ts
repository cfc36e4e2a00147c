export { createSegments, dropSegments, importSegments } from './segments.batch.service.js';
export type { ImportedSegment } from './segments.batch.store.js';
export { segmentChanges } from './segments.changes.js';
export { segmentRoutes } from './segments.routes.js';
