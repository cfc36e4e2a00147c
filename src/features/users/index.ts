export { hashPassword, verifyPassword } from './password.hash.js';
export { serviceAccountRoutes } from './service-accounts.routes.js';
export { sessionRoutes } from './sessions.routes.js';
export { sessionTtlMs } from './sessions.service.js';
export {
  grantsOfUser,
  hashSecret,
  PAT_PREFIX,
  principalOfUser,
  SESSION_COOKIE,
  userDisplayName,
  userResolver,
} from './users.auth.js';
export { ensureAdminUser } from './users.init.js';
export { userRoutes } from './users.routes.js';
export { type User, UserSchema } from './users.schemas.js';
export { checkPassword } from './users.service.js';
export {
  addProjectOwner,
  avatarUrl,
  findUsers,
  insertUser,
  listRoles,
  toUser,
  type UserRow,
  userEventData,
} from './users.store.js';
