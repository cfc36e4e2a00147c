// biome-ignore-all assist/source/organizeImports: schemas first (docs/architecture.md, dependency rules).
export { PublicSignupTokenSchema, PublicSignupTokensSchema } from './invites.schemas.js';
export { inviteRoutes } from './invites.routes.js';
