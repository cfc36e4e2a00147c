import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { UserSchema } from '../users/index.js';

export const GroupSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Group id.', examples: [1] }),
    name: Type.String({ description: 'Group name (unique).', examples: ['DX team'] }),
    description: Nullable(Type.String({ description: 'What the group is.' })),
    mappingsSSO: Type.Array(Type.String({ description: 'An SSO group name.' }), {
      description: 'SSO groups mapped to this group (stored; no SSO here).',
    }),
    rootRole: Nullable(Type.Integer({ description: 'Root role every member gets (id), or null.' })),
    createdBy: Nullable(Type.String({ description: 'Who created the group.' })),
    createdAt: Nullable(Type.String({ format: 'date-time', description: 'When the group was created.' })),
    users: Type.Array(
      Type.Object({
        joinedAt: Type.String({ format: 'date-time', description: 'When the user joined the group.' }),
        createdBy: Nullable(Type.String({ description: 'Who added the user.' })),
        user: UserSchema,
      }),
      { description: 'The members.' },
    ),
    projects: Type.Array(Type.String({ description: 'A project id.' }), {
      description: 'Projects where the group holds a role.',
    }),
    userCount: Type.Integer({ description: 'Number of members.' }),
    scimId: Nullable(Type.String({ description: 'Id in an external provisioning system (never set here).' })),
  },
  { description: 'A group of users; its roles apply to every member.' },
);
export type Group = Static<typeof GroupSchema>;

export const GroupBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Group name (unique).',
      examples: ['DX team'],
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'What the group is.' }))),
    mappingsSSO: Type.Optional(
      Type.Array(Type.String({ maxLength: 255, description: 'An SSO group name.' }), {
        maxItems: 100,
        description: 'SSO groups mapped to this group.',
      }),
    ),
    rootRole: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 1, description: 'Root role for every member (id), or null for none.' }),
      ),
    ),
    users: Type.Optional(
      Type.Array(
        Type.Object(
          {
            user: Type.Object(
              { id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'User id.' }) },
              { description: 'The user.' },
            ),
          },
          { description: 'A member.' },
        ),
        { maxItems: 10_000, description: 'The members (replaces the current ones on update).' },
      ),
    ),
  },
  { description: 'A group to create or the new state of one.' },
);
export type GroupInput = Static<typeof GroupBody>;

export const GroupParams = Type.Object({
  groupId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Group id.' }),
});

export const GroupListSchema = Type.Object(
  { groups: Type.Array(GroupSchema, { description: 'Every group, by name.' }) },
  { description: 'The groups.' },
);
