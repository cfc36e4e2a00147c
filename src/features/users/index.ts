// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { UserSchema } from './users.schemas.js';
export { userRoutes } from './users.routes.js';
export { sessionRoutes } from './sessions.routes.js';
export { SESSION_COOKIE, PAT_PREFIX, userResolver } from './users.auth.js';
export { ensureAdminUser } from './users.init.js';
export { addProjectOwner } from './users.store.js';
export { sessionTtlMs } from './sessions.service.js';
