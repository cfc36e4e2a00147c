import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { PatSchema } from './pats.schemas.js';
import { RoleSchema } from './users.schemas.js';

export const ServiceAccountSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Service account id (a user id).', examples: [12] }),
    name: Type.Optional(Nullable(Type.String({ description: 'Display name.', examples: ['CI pipeline'] }))),
    username: Type.Optional(
      Nullable(
        Type.String({ description: 'Login name, shown as `createdBy` on its events.', examples: ['ci-bot'] }),
      ),
    ),
    imageUrl: Type.String({ description: 'Avatar URL (Gravatar, from the username).' }),
    accountType: Type.String({ description: 'Always `Service Account`.', examples: ['Service Account'] }),
    rootRole: Type.Integer({
      description: 'Id of the root role (built-in or custom) it acts with.',
      examples: [2],
    }),
    seenAt: Nullable(
      Type.String({ format: 'date-time', description: 'Always null: service accounts never log in.' }),
    ),
    createdAt: Type.String({ format: 'date-time', description: 'When the service account was created.' }),
    tokens: Type.Array(PatSchema, { description: 'Its tokens, oldest first (never their secrets).' }),
  },
  { description: 'A service account: a user without a password that acts only through its tokens.' },
);
export type ServiceAccount = Static<typeof ServiceAccountSchema>;

export const ServiceAccountListSchema = Type.Object(
  {
    serviceAccounts: Type.Array(ServiceAccountSchema, { description: 'Every service account, by id.' }),
    rootRoles: Type.Array(RoleSchema, { description: 'The root roles a service account can have.' }),
  },
  { description: 'Service accounts and the root roles.' },
);

const RootRoleInput = Type.Union(
  [
    Type.Integer({ minimum: 1, description: 'A root role id.' }),
    Type.String({ minLength: 1, maxLength: 100, description: 'A root role name (built-in or custom).' }),
  ],
  { description: 'The root role, by id or name.', examples: [2] },
);
const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Display name.',
  examples: ['CI pipeline'],
});

export const CreateServiceAccountBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^\\S+$',
      description: 'Login name, unique among users and service accounts in any letter case.',
      examples: ['ci-bot'],
    }),
    name: Name,
    rootRole: RootRoleInput,
  },
  { additionalProperties: false, description: 'A new service account.' },
);
export type CreateServiceAccountInput = Static<typeof CreateServiceAccountBody>;

export const UpdateServiceAccountBody = Type.Object(
  {
    name: Type.Optional(Name),
    rootRole: Type.Optional(RootRoleInput),
  },
  {
    additionalProperties: false,
    description: 'The fields to change (the username stays); omitted ones keep their value.',
  },
);
export type UpdateServiceAccountInput = Static<typeof UpdateServiceAccountBody>;

export const ServiceAccountParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Service account id.' }),
});

export const ServiceAccountTokenParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Service account id.' }),
  tokenId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Token id.' }),
});

export const ServiceAccountTokenListSchema = Type.Object(
  { pats: Type.Array(PatSchema, { description: "The service account's tokens, oldest first." }) },
  { description: "A service account's tokens (secrets are never listed)." },
);
