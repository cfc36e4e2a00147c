import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

const TYPE_PATTERN =
  '^([Cc][Ll][Ii][Ee][Nn][Tt]|[Bb][Aa][Cc][Kk][Ee][Nn][Dd]|[Ff][Rr][Oo][Nn][Tt][Ee][Nn][Dd]|[Aa][Dd][Mm][Ii][Nn])$';

export const CreateApiTokenBody = Type.Object(
  {
    tokenName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Name of the token.',
        examples: ['checkout-service'],
      }),
    ),
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Deprecated alias of tokenName.',
        deprecated: true,
      }),
    ),
    type: Type.String({
      pattern: TYPE_PATTERN,
      description:
        'client (backend SDKs; `backend` is an alias), frontend, or admin (whole admin API), in any letter case.',
      examples: ['client'],
    }),
    environment: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The environment the token reads (default development); admin tokens: absent or `*`.',
        examples: ['development'],
      }),
    ),
    project: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'One project (used when `projects` is absent).',
        examples: ['default'],
      }),
    ),
    projects: Type.Optional(
      Type.Array(Type.String({ maxLength: 100, description: 'A project id, or `*` for all.' }), {
        minItems: 1,
        maxItems: 1000,
        description: 'Projects the token reads (default all: `["*"]`).',
        examples: [['default']],
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the token stops working (a future time).' }),
    ),
  },
  { description: 'A new API token.' },
);
export type CreateApiTokenInput = Static<typeof CreateApiTokenBody>;

export const UpdateApiTokenBody = Type.Object(
  {
    expiresAt: Type.String({ format: 'date-time', description: 'The new expiry time.' }),
  },
  { description: 'The new expiry of the token.' },
);
export type UpdateApiTokenInput = Static<typeof UpdateApiTokenBody>;

export const ApiTokenSchema = Type.Object(
  {
    secret: Type.String({
      description:
        'At creation: the token itself, shown only this once. In lists: only its display prefix (ending in …), which cannot be used.',
      examples: ['default:development.4d2f0c9a…'],
    }),
    tokenName: Type.String({ description: 'Name of the token.', examples: ['checkout-service'] }),
    type: Type.String({ description: 'client, frontend or admin.', examples: ['client'] }),
    environment: Type.String({
      description: 'The environment; `*` for admin tokens.',
      examples: ['development'],
    }),
    project: Type.String({
      description: 'The project of a single-project token; `*` for all projects, `[]` for several.',
      examples: ['default'],
    }),
    projects: Type.Array(Type.String({ description: 'A project id or `*`.' }), {
      description: 'Projects the token reads.',
    }),
    expiresAt: Nullable(Type.String({ format: 'date-time', description: 'When the token stops working.' })),
    createdAt: Type.String({ format: 'date-time', description: 'Creation time.' }),
    seenAt: Nullable(Type.String({ format: 'date-time', description: 'Last use, when recorded.' })),
    alias: Nullable(Type.String({ description: 'Alternative secret, if any.' })),
    secure: Type.Boolean({ description: 'true when `secret` is only the display prefix (lists).' }),
  },
  { description: 'An API token.' },
);
export type ApiToken = Static<typeof ApiTokenSchema>;

export const ApiTokensSchema = Type.Object(
  { tokens: Type.Array(ApiTokenSchema, { description: 'The tokens, newest first.' }) },
  { description: 'API tokens, without their secrets.' },
);

export const TokenParams = Type.Object({
  token: Type.String({
    maxLength: 400,
    description: 'The full token secret, as returned at creation.',
    examples: ['default:development.4d2f…'],
  }),
});

export const TokenNameParams = Type.Object({
  name: Type.String({ maxLength: 100, description: 'A token name.', examples: ['checkout-service'] }),
});
