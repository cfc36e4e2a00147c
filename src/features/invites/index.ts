export { inviteRoutes } from './invites.routes.js';
export { PublicSignupTokenSchema, PublicSignupTokensSchema } from './invites.schemas.js';
