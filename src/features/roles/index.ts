// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { RoleSchema, RoleWithPermissionsSchema } from './roles.schemas.js';
export { roleRoutes } from './roles.routes.js';
