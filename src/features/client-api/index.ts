export { acceptsGzip, clientFlag, matchesEtag } from './client-api.payload.js';
export { clientApiRoutes } from './client-api.routes.js';
export { clientFeatures } from './client-api.service.js';
export { answerNotModifiedEarly } from './not-modified.js';
export {
  projectsKey,
  type Registration,
  type SdkPorts,
  type SdkReporting,
  type SdkType,
  sdkScope,
  type UsageReport,
} from './sdk-ports.js';
