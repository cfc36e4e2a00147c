export { stateRoutes } from './state.routes.js';
export { StateDocument } from './state.schemas.js';
