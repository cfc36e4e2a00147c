export { roleRoutes } from './roles.routes.js';
export { RoleSchema, RoleWithPermissionsSchema } from './roles.schemas.js';
