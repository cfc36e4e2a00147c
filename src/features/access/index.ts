export { ensureAdminTokens, hashSecret, parseInitTokens, tokenResolver } from './api-tokens.js';
export { apiTokenRoutes } from './api-tokens.routes.js';
