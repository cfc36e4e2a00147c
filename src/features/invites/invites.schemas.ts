import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { UserSchema } from '../users/index.js';

const ExpiresAt = Type.String({
  format: 'date-time',
  description: 'When the token stops working.',
  examples: ['2030-01-01T00:00:00.000Z'],
});

export const InviteRoleSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Role id.', examples: [3] }),
    name: Type.String({ description: 'Role name.', examples: ['Viewer'] }),
    type: Type.String({ description: '`root`: an instance-wide role.', examples: ['root'] }),
    description: Type.Optional(Type.String({ description: 'What the role allows.' })),
  },
  { description: 'The root role given to everyone who signs up with the token (always Viewer).' },
);

export const PublicSignupTokenSchema = Type.Object(
  {
    secret: Type.String({
      description:
        'The secret (the value in the invite link). A token created before secrets were kept (only their hash) shows its first 6 characters and `…`.',
      examples: ['5da6db47f82e3878601603880b64cac6', '5da6db…'],
    }),
    url: Nullable(
      Type.String({
        description:
          'The invite link `<PUBLIC_URL>/new-user?invite=<secret>`; `null` for a token whose secret was not kept.',
        examples: ['https://flags.example.com/new-user?invite=5da6db47f82e3878601603880b64cac6'],
      }),
    ),
    name: Type.String({ description: 'Display name of the token.', examples: ['Invite colleagues'] }),
    enabled: Type.Boolean({ description: 'Whether the link can be used; always false once expired.' }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the token expires.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the token was created.' }),
    createdBy: Nullable(Type.String({ description: 'Who created it: email, username or API token name.' })),
    users: Nullable(
      Type.Array(UserSchema, { description: 'The users who signed up with this token, in signup order.' }),
    ),
    role: InviteRoleSchema,
  },
  { description: 'A public signup token: an invite link that lets people create their own account.' },
);
export type PublicSignupToken = Static<typeof PublicSignupTokenSchema>;

export const PublicSignupTokensSchema = Type.Object(
  {
    tokens: Type.Array(PublicSignupTokenSchema, { description: 'Every public signup token, newest first.' }),
  },
  { description: 'All public signup tokens.' },
);

export const CreatePublicSignupTokenBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Display name of the token.',
      examples: ['Invite colleagues'],
    }),
    expiresAt: Type.String({
      format: 'date-time',
      description:
        'When the token expires: a future time, at most one month from now (later ones are capped).',
      examples: ['2030-01-01T00:00:00.000Z'],
    }),
  },
  { additionalProperties: false, description: 'A new public signup token.' },
);
export type CreatePublicSignupTokenInput = Static<typeof CreatePublicSignupTokenBody>;

export const UpdatePublicSignupTokenBody = Type.Object(
  {
    expiresAt: Type.Optional(ExpiresAt),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false disables the link (the way to delete it); true enables it again.' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'What to change: at least one of `expiresAt` (not capped here) and `enabled`.',
  },
);
export type UpdatePublicSignupTokenInput = Static<typeof UpdatePublicSignupTokenBody>;

export const TokenParams = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: "The token's full secret (as in the invite link).",
  }),
});

export const CreateInvitedUserBody = Type.Object(
  {
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: '^\\S+$',
        description: 'Login name; must be unique when given.',
        examples: ['hunter'],
      }),
    ),
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      description: 'Email address (also a login name); must be unique.',
      examples: ['hunter@example.com'],
    }),
    name: Type.Optional(Type.String({ maxLength: 255, description: 'Display name.', examples: ['Hunter'] })),
    password: Type.String({
      maxLength: 1000,
      description: 'The password; it must pass the password rules.',
    }),
  },
  { additionalProperties: false, description: 'The account someone creates with an invite link.' },
);
export type CreateInvitedUserInput = Static<typeof CreateInvitedUserBody>;
