import type { Deps } from '../../deps.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { EdgeTokenList as TokenList, ValidEdgeTokens as ValidTokens } from '../shapes/index.js';
import { tokenResolver } from './api-tokens.auth.js';

/**
 * `POST /edge/validate`, as Unleash serves it to Unleash Edge and as this service's edge mode uses
 * it (src/edge/): which of the given tokens are valid SDK tokens, with their scope. Public, as in
 * Unleash: it reveals nothing about a token one does not already hold. Admin tokens and personal
 * access tokens are never listed: an edge serves SDKs only.
 */
export const edgeValidateRoutes = (deps: Deps) =>
  routes(async (app) => {
    const resolve = tokenResolver(deps.database.db);
    app.post(
      '/edge/validate',
      {
        config: { permission: 'PUBLIC', rateLimit: { max: 600, timeWindow: 60_000 } },
        schema: {
          tags: ['Unleash Edge'],
          operationId: 'getValidTokens',
          summary: 'Check which tokens are valid',
          description:
            'For each valid client or frontend token of the list: the token, its type, environment and projects. Invalid, expired, admin and personal tokens are left out.',
          body: TokenList,
          response: { 200: ValidTokens, ...errorResponses(400, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        noStore(reply); // the answer repeats the secrets it was sent
        const unique = [...new Set(request.body.tokens)];
        const checked = await Promise.all(
          unique.map(async (token) => ({ token, principal: await resolve(token) })),
        );
        const tokens = checked.flatMap(({ token, principal }) => {
          const type =
            principal?.kind === 'client-token'
              ? 'client'
              : principal?.kind === 'frontend-token'
                ? 'frontend'
                : undefined;
          if (!type || !principal?.scope) return [];
          const { environment, projects } = principal.scope;
          return [{ token, type, environment, projects }] as const;
        });
        return { tokens };
      },
    );
  });
