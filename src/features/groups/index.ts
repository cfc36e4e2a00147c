// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { GroupSchema } from './groups.schemas.js';
export { groupRoutes } from './groups.routes.js';
export { findGroup } from './groups.store.js';
export { viewGroups } from './groups.service.js';
