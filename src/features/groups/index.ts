export { groupRoutes } from './groups.routes.js';
export { GroupSchema } from './groups.schemas.js';
export { viewGroups } from './groups.service.js';
export { findGroup } from './groups.store.js';
