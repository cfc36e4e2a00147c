export { ensureAdminTokens, hashSecret, parseInitTokens, tokenResolver } from './api-tokens.auth.js';
export { apiTokenRoutes } from './api-tokens.routes.js';
export { dropProjectFromTokens } from './api-tokens.store.js';
export { edgeValidateRoutes } from './edge-validate.routes.js';
