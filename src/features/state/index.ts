// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { StateDocument } from './state.schemas.js';
export { stateRoutes } from './state.routes.js';
