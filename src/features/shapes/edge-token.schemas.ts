import { Type } from 'typebox';

/**
 * `POST /edge/validate`'s wire shapes: the service answers Unleash Edge and its own replicas with
 * them, and a replica answers the replicas chained behind it with the same.
 */

/** Tokens checked per request at most: an edge replica validates the few its SDKs send. */
const MAX_TOKENS = 1000;

export const EdgeTokenList = Type.Object(
  {
    tokens: Type.Array(Type.String({ maxLength: 1000, description: 'A token as an SDK sends it.' }), {
      maxItems: MAX_TOKENS,
      description: 'The tokens to check.',
    }),
  },
  { description: 'Tokens an edge replica wants to know about.' },
);

export const EdgeTokenSchema = Type.Object(
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

export const ValidEdgeTokens = Type.Object(
  { tokens: Type.Array(EdgeTokenSchema, { description: 'Only the valid SDK tokens of the request.' }) },
  { additionalProperties: false, description: 'The valid tokens and their scopes.' },
);
