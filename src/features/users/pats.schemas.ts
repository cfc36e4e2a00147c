import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

export const PatSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Token id (grows with creation).', examples: [1] }),
    description: Type.String({ description: 'What the token is for.', examples: ['CI pipeline'] }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the token stops working.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the token was created.' }),
    seenAt: Nullable(Type.String({ format: 'date-time', description: 'Last use (not tracked yet: null).' })),
    userId: Type.Integer({ description: 'The user the token acts as.' }),
    secret: Type.Optional(Type.String({ description: 'The token; returned only by the creation.' })),
  },
  { description: 'A personal access token: acts as its user until it expires.' },
);

export const PatListSchema = Type.Object(
  { pats: Type.Array(PatSchema, { description: "The caller's tokens, oldest first." }) },
  { description: "The caller's personal access tokens (secrets are never listed)." },
);

export const CreatePatBody = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 255, description: 'What the token is for.' }),
    expiresAt: Type.String({ format: 'date-time', description: 'Expiry: required, in the future.' }),
  },
  { additionalProperties: false, description: 'A new personal access token.' },
);

export const PatParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Token id.' }),
});
