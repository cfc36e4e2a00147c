import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

export const RoleSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Role id.', examples: [2] }),
    name: Type.String({ description: 'Role name.', examples: ['Editor'] }),
    type: Type.String({
      description: '`root` or `root-custom` (instance-wide), `project` or `custom` (per project).',
      examples: ['root'],
    }),
    description: Type.String({ description: 'What the role allows.' }),
  },
  { description: 'A role: a named set of permissions.' },
);

export const UserSchema = Type.Object(
  {
    id: Type.Integer({ description: 'User id.', examples: [7] }),
    name: Type.Optional(Nullable(Type.String({ description: 'Display name.', examples: ['Ada Lovelace'] }))),
    username: Type.Optional(Nullable(Type.String({ description: 'Login name.', examples: ['ada'] }))),
    email: Type.Optional(Nullable(Type.String({ description: 'Email address (also a login name).' }))),
    imageUrl: Type.String({ description: 'Avatar URL (Gravatar, from the email or username).' }),
    accountType: Type.String({ description: '`User` or `Service Account`.', examples: ['User'] }),
    rootRole: Type.Integer({ description: 'Id of the root role.', examples: [2] }),
    loginAttempts: Type.Integer({ description: 'Failed logins since the last successful one.' }),
    emailSent: Type.Boolean({ description: 'Whether a welcome email was sent (never: no mail is sent).' }),
    seenAt: Nullable(Type.String({ format: 'date-time', description: 'Last successful login.' })),
    createdAt: Type.String({ format: 'date-time', description: 'When the user was created.' }),
    scimId: Nullable(Type.String({ description: 'Id in an external provisioning system (never set here).' })),
    inviteLink: Type.Optional(Type.String({ description: 'Link to set a first password; empty when none.' })),
  },
  { description: 'A person (or service account) who can sign in.' },
);
export type User = Static<typeof UserSchema>;

const RootRoleInput = Type.Union(
  [
    Type.Integer({ minimum: 1, description: 'A root role id.' }),
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A root role name (Admin, Editor, Viewer or a custom root role).',
    }),
  ],
  { description: 'The root role, by id or name.', examples: ['Editor'] },
);

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  description: 'Email address.',
  examples: ['ada@example.com'],
});
const Name = Type.String({ maxLength: 255, description: 'Display name.', examples: ['Ada Lovelace'] });
const Password = Type.String({
  maxLength: 1000,
  description: 'The password (checked against the password rules).',
});

export const CreateUserBody = Type.Object(
  {
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: '^\\S+$',
        description: 'Login name.',
        examples: ['ada'],
      }),
    ),
    email: Type.Optional(Email),
    name: Type.Optional(Name),
    password: Type.Optional(Password),
    rootRole: RootRoleInput,
    sendEmail: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility; no mail is sent.' })),
  },
  { additionalProperties: false, description: 'A new user: a username or an email is required.' },
);
export type CreateUserInput = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Name),
    rootRole: Type.Optional(RootRoleInput),
  },
  { additionalProperties: false, description: 'The fields to change; omitted ones keep their value.' },
);
export type UpdateUserInput = Static<typeof UpdateUserBody>;

export const PasswordBody = Type.Object(
  { password: Password },
  { additionalProperties: false, description: 'A password to check or set.' },
);

export const UserParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'User id.' }),
});

export const UserListSchema = Type.Object(
  {
    users: Type.Array(UserSchema, { description: 'Every user, by id.' }),
    rootRoles: Type.Array(RoleSchema, { description: 'The root roles a user can have.' }),
  },
  { description: 'Users and the root roles.' },
);

export const LoginBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Username or email.',
      examples: ['admin'],
    }),
    password: Type.String({ minLength: 1, maxLength: 1000, description: 'The password.' }),
  },
  { additionalProperties: false, description: 'Credentials of a password login.' },
);

export const PermissionGrantSchema = Type.Object(
  {
    permission: Type.String({ description: 'Permission name.', examples: ['UPDATE_FEATURE'] }),
    project: Type.Optional(
      Type.String({ description: 'The project it applies to (absent: every project).' }),
    ),
    environment: Type.Optional(
      Type.String({ description: 'The environment it applies to (absent: not environment-scoped).' }),
    ),
  },
  { description: 'One permission of the caller.' },
);

export const MeSchema = Type.Object(
  {
    user: Type.Object(
      {
        id: Type.Optional(Type.Integer({ description: 'User id (API tokens: -42).' })),
        name: Type.Optional(Nullable(Type.String({ description: 'Display name.' }))),
        username: Type.Optional(Nullable(Type.String({ description: 'Login name, or the API token name.' }))),
        email: Type.Optional(Nullable(Type.String({ description: 'Email address.' }))),
        imageUrl: Type.Optional(Type.String({ description: 'Avatar URL.' })),
        accountType: Type.Optional(Type.String({ description: '`User`, `Service Account` or `API token`.' })),
        rootRole: Type.Optional(Type.Integer({ description: 'Id of the root role.' })),
        loginAttempts: Type.Optional(Type.Integer({ description: 'Failed logins since the last one.' })),
        seenAt: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'Last login.' }))),
        createdAt: Type.Optional(Type.String({ format: 'date-time', description: 'Creation time.' })),
        isAPI: Type.Optional(Type.Boolean({ description: 'True for an API token (deprecated).' })),
      },
      { description: 'The caller (for an API token, a synthetic user without its secret).' },
    ),
    permissions: Type.Array(PermissionGrantSchema, { description: "The caller's permissions." }),
    feedback: Type.Array(
      Type.Object({
        userId: Type.Integer({ description: 'User id.' }),
        feedbackId: Type.String({ description: 'Which feedback prompt.' }),
        neverShow: Type.Boolean({ description: 'Never show it again.' }),
        given: Nullable(Type.String({ format: 'date-time', description: 'When feedback was given.' })),
      }),
      { description: 'Feedback prompts the user answered.' },
    ),
    splash: Type.Record(Type.String(), Type.Boolean(), { description: 'Splash screens seen, by id.' }),
  },
  { description: 'The caller, with permissions.' },
);

export const UserSearchQuery = Type.Object({
  q: Type.String({
    minLength: 2,
    maxLength: 100,
    description: 'Text to find in the name, username or email (at least 2 characters).',
    examples: ['ada'],
  }),
});

export const UserSearchSchema = Type.Array(UserSchema, {
  description: 'Matching people, at most 100, by id.',
});

export const AdminCountSchema = Type.Object(
  {
    password: Type.Integer({ description: 'Admins with a password.' }),
    noPassword: Type.Integer({ description: 'Admins without a password (not signed up yet, or SSO).' }),
    service: Type.Integer({ description: 'Service accounts with the Admin root role.' }),
  },
  { description: 'How many admins the instance has.' },
);

export const ProfileSchema = Type.Object(
  {
    rootRole: RoleSchema,
    projects: Type.Array(Type.String({ description: 'A project id.' }), {
      description: 'Projects where the user holds a role, directly or through a group.',
    }),
    groups: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'Group id.' }),
        name: Type.String({ description: 'Group name.' }),
        description: Nullable(Type.String({ description: 'What the group is.' })),
      }),
      { description: 'The groups the user belongs to.' },
    ),
    subscriptions: Type.Array(Type.String(), {
      description: 'Email subscriptions: none (no email is sent).',
    }),
    features: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Deprecated; always empty, as in Unleash.',
    }),
    canChangePassword: Type.Boolean({
      description: 'Whether the user has a password of their own to change.',
    }),
  },
  { description: 'The signed-in user: root role, projects and groups.' },
);

export const MyRolesQuery = Type.Object({
  projectId: Type.Optional(
    Type.String({ maxLength: 100, description: 'Only the project roles held in this project.' }),
  ),
});

export const MyRolesSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version.', examples: [1] }),
    roles: Type.Array(RoleSchema, { description: 'The roles held, directly or through groups, by id.' }),
  },
  { description: "The signed-in user's roles." },
);

export const InactiveUsersSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version.', examples: [1] }),
    inactiveUsers: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'User id.' }),
        name: Nullable(Type.String({ description: 'Name.' })),
        username: Nullable(Type.String({ description: 'Username.' })),
        email: Type.Optional(Type.String({ description: 'Email.' })),
        seenAt: Nullable(Type.String({ format: 'date-time', description: 'Last sign-in; null: never.' })),
        createdAt: Type.String({ format: 'date-time', description: 'When the user was created.' }),
      }),
      { description: 'People not seen for 180 days (never seen: created 180 days ago or more), by id.' },
    ),
  },
  { description: 'Inactive users.' },
);

export const IdsBody = Type.Object(
  {
    ids: Type.Array(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'A user id.' }), {
      maxItems: 10_000,
      description: 'Users to delete if they are inactive.',
    }),
  },
  { additionalProperties: false, description: 'User ids.' },
);

export const UsersAndGroupsSchema = Type.Object(
  {
    users: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'User id.' }),
        name: Type.Optional(Type.String({ description: 'Name.' })),
        username: Type.Optional(Type.String({ description: 'Username.' })),
        email: Type.Optional(Type.String({ description: 'Email.' })),
        imageUrl: Type.String({ description: 'Avatar URL.' }),
        accountType: Type.String({ description: 'User.' }),
      }),
      { description: 'People, by id.' },
    ),
    groups: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'Group id.' }),
        name: Type.String({ description: 'Group name.' }),
        userCount: Type.Integer({ description: 'Members.' }),
        rootRole: Nullable(Type.Integer({ description: 'Root role id given to members, if any.' })),
      }),
      { description: 'Groups, by name.' },
    ),
  },
  { description: 'People and groups, for pickers.' },
);
