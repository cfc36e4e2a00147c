import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { GroupSchema } from '../groups/index.js';

const RoleIds = Type.Array(
  Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'A project role id.' }),
  {
    maxItems: 100,
    description: 'Project roles (Owner 4, Member 5, Reader 6, or custom project roles).',
  },
);

const Holding = {
  addedAt: Type.String({ format: 'date-time', description: 'When the first of these roles was given.' }),
  roleId: Type.Integer({ description: 'The first of the roles (by id).' }),
  roles: Type.Array(Type.Integer({ description: 'A role id.' }), {
    description: 'Every project role held here.',
  }),
};

export const ProjectAccessSchema = Type.Object(
  {
    roles: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'Role id.' }),
        name: Type.String({ description: 'Role name.' }),
        type: Type.String({ description: '`project` (built in) or `custom`.' }),
        description: Type.String({ description: 'What the role allows.' }),
        project: Nullable(Type.String({ description: 'Owning project (null: every project).' })),
      }),
      { description: 'The roles that can be given in a project.' },
    ),
    users: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'User id.' }),
        name: Type.Optional(Nullable(Type.String({ description: 'Display name.' }))),
        username: Type.Optional(Nullable(Type.String({ description: 'Login name.' }))),
        email: Type.Optional(Nullable(Type.String({ description: 'Email address.' }))),
        imageUrl: Type.String({ description: 'Avatar URL.' }),
        isAPI: Type.Boolean({ description: 'Always false (deprecated).' }),
        ...Holding,
      }),
      { description: 'Users with roles in the project.' },
    ),
    groups: Type.Array(Type.Intersect([GroupSchema, Type.Object(Holding)]), {
      description: 'Groups with roles in the project.',
    }),
  },
  { description: 'Who has which role in the project.' },
);

/** An id as Unleash's web UI sends it (a plain integer) or as an object `{id}`. */
const IdRef = (what: string) => {
  const id = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: `${what} id.` });
  return Type.Union([id, Type.Object({ id })], { description: `A ${what.toLowerCase()} id, or {id}.` });
};

export const AccessBody = Type.Object(
  {
    roles: RoleIds,
    users: Type.Optional(
      Type.Array(IdRef('User'), { maxItems: 1000, description: 'Users to give every listed role.' }),
    ),
    groups: Type.Optional(
      Type.Array(IdRef('Group'), { maxItems: 1000, description: 'Groups to give every listed role.' }),
    ),
  },
  { additionalProperties: false, description: 'Roles to give users and groups in the project.' },
);

/** The id of an IdRef, whichever form was sent. */
export const idOf = (ref: number | { id: number }) => (typeof ref === 'number' ? ref : ref.id);

export type AccessInput = Static<typeof AccessBody>;

export const RolesBody = Type.Object(
  { roles: RoleIds },
  {
    additionalProperties: false,
    description: 'The project roles to hold from now on (replaces the current ones).',
  },
);

export const AccessUserParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'Project id.' }),
  userId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'User id.' }),
});
export const AccessGroupParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'Project id.' }),
  groupId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Group id.' }),
});
