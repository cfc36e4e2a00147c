export { signalRoutes } from './signals.routes.js';
export { PageQuery, type Signal, SignalSchema } from './signals.schemas.js';
export { findEndpoint as findSignalEndpoint, pruneSignals, takeUnprocessedSignals } from './signals.store.js';
