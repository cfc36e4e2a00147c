import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ASSIGNABLE_PERMISSIONS } from './roles.validate.js';

const roleProperties = {
  id: Type.Integer({ description: 'Role id.', examples: [7] }),
  name: Type.String({ description: 'Role name (unique in any letter case).', examples: ['Flag maintainer'] }),
  type: Type.String({
    description:
      '`root` (built-in root role), `project` (built-in project role), `root-custom` (custom root role: applies in every project) or `custom` (custom project role: applies in the project where it is given).',
    examples: ['root-custom'],
  }),
  description: Type.String({ description: 'What the role is for (empty when none).' }),
};

export const RoleSchema = Type.Object(roleProperties, { description: 'A role: a named set of permissions.' });
export type Role = Static<typeof RoleSchema>;

export const RoleListSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Version of this shape: 1.', examples: [1] }),
    roles: Type.Array(RoleSchema, { description: 'Every role, built-in and custom, by id.' }),
  },
  { description: 'The roles.' },
);

export const RolePermissionSchema = Type.Object(
  {
    name: Type.String({ description: 'Permission name.', examples: ['CREATE_FEATURE'] }),
    environment: Type.Optional(
      Type.String({
        description:
          'The environment an environment-scoped permission is limited to (`*`: every environment); absent for the other permissions.',
        examples: ['production'],
      }),
    ),
    project: Type.Optional(
      Type.String({
        description:
          "Built-in roles only: the project a grant is limited to (the Editor's flag rights in `default`). Absent: every project (root roles) or the project where the role is given (project roles).",
        examples: ['default'],
      }),
    ),
  },
  { description: 'One permission a role grants.' },
);

export const RoleWithPermissionsSchema = Type.Object(
  {
    ...roleProperties,
    permissions: Type.Array(RolePermissionSchema, {
      description: 'What the role grants, by name, then environment.',
    }),
  },
  { description: 'A role with its permissions.' },
);
export type RoleWithPermissions = Static<typeof RoleWithPermissionsSchema>;

const PermissionInput = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: `Permission name, one of: ${ASSIGNABLE_PERMISSIONS.join(', ')}. A custom project role holds project permissions only.`,
      examples: ['UPDATE_FEATURE_STRATEGY'],
    }),
    environment: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'Environment-scoped permissions (`*_FEATURE_STRATEGY`, `UPDATE_FEATURE_ENVIRONMENT`, `UPDATE_FEATURE_ENVIRONMENT_VARIANTS`): one existing environment, or `*` (the default) for every environment. Other permissions take none; empty means none.',
        examples: ['production'],
      }),
    ),
    id: Type.Optional(
      Type.Integer({
        description:
          "Accepted for compatibility with Unleash's permission ids, and ignored: permissions are named.",
      }),
    ),
  },
  { additionalProperties: false, description: 'One permission of the role.' },
);

const RoleName = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'Role name, unique among all roles in any letter case (leading and trailing spaces are dropped).',
  examples: ['Flag maintainer'],
});
const RoleDescription = Nullable(
  Type.String({
    maxLength: 1000,
    description: 'What the role is for.',
    examples: ['Edits flags everywhere.'],
  }),
);
const RolePermissions = Type.Array(PermissionInput, {
  maxItems: 500,
  description: 'The permissions of the role (repeated ones count once).',
});

export const CreateRoleBody = Type.Object(
  {
    name: RoleName,
    description: Type.Optional(RoleDescription),
    type: Type.Optional(
      Type.Enum(['root-custom', 'custom'], {
        description:
          '`root-custom`: a custom root role, given to users and service accounts as their root role; its permissions apply in every project. `custom` (the default, as in Unleash): a custom project role, given in a project.',
        examples: ['root-custom'],
      }),
    ),
    permissions: Type.Optional(RolePermissions),
  },
  { additionalProperties: false, description: 'A new custom role.' },
);
export type CreateRoleInput = Static<typeof CreateRoleBody>;

export const UpdateRoleBody = Type.Object(
  {
    name: RoleName,
    description: Type.Optional(RoleDescription),
    type: Type.Optional(
      Type.Enum(['root-custom', 'custom'], {
        description: "The role's current type (it cannot change: 400 for the other one).",
        examples: ['root-custom'],
      }),
    ),
    permissions: Type.Optional(RolePermissions),
  },
  {
    additionalProperties: false,
    description:
      'The role as it should be: name required; `description` and `permissions` left out keep their value, `permissions: []` removes them all.',
  },
);
export type UpdateRoleInput = Static<typeof UpdateRoleBody>;

export const RoleParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Role id.' }),
});
