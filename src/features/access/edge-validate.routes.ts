import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { tokenResolver } from './api-tokens.auth.js';

/** Tokens checked per request at most: an edge replica validates the few its SDKs send. */
const MAX_TOKENS = 1000;

const TokenList = Type.Object(
  {
    tokens: Type.Array(Type.String({ maxLength: 1000, description: 'A token as an SDK sends it.' }), {
      maxItems: MAX_TOKENS,
      description: 'The tokens to check.',
    }),
  },
  { description: 'Tokens an edge replica wants to know about.' },
);

const EdgeToken = Type.Object(
  {
    token: Type.String({ description: 'The token, as sent.' }),
    type: Type.Union([Type.Literal('client'), Type.Literal('frontend')], {
      description: '`client` (backend SDKs) or `frontend` (browser and mobile SDKs).',
    }),
    environment: Type.String({ description: 'The environment whose flags the token receives.' }),
    projects: Type.Array(Type.String(), { description: 'Its projects; `*` means all.' }),
  },
  { additionalProperties: false, description: 'A valid SDK token and its scope.' },
);

const ValidTokens = Type.Object(
  { tokens: Type.Array(EdgeToken, { description: 'Only the valid SDK tokens of the request.' }) },
  { additionalProperties: false, description: 'The valid tokens and their scopes.' },
);

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
