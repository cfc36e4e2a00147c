import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { resetRoutes } from './reset.routes.js';
import { resetEmailRoutes } from './reset-email.routes.js';
import {
  AdminCountSchema,
  CreateUserBody,
  IdsBody,
  InactiveUsersSchema,
  PasswordBody,
  UpdateUserBody,
  UserListSchema,
  UserParams,
  UserSchema,
  UserSearchQuery,
  UserSearchSchema,
  UsersAndGroupsSchema,
} from './users.schemas.js';
import {
  adminCount,
  changePassword,
  changeUser,
  checkPassword,
  createUser,
  deleteInactive,
  getUser,
  listAllUsers,
  listInactive,
  removeUser,
  searchUsers,
  usersAndGroups,
} from './users.service.js';

const tags = ['Users'];

/** User administration (`/api/admin/user-admin`, as Unleash) and the public password check. */
export const userRoutes = (deps: Deps) =>
  routes(async (app) => {
    await app.register(resetRoutes(deps));
    await app.register(resetEmailRoutes(deps));
    const db = deps.database.db;

    // The same check in two places: public (before signing in) and for a signed-in caller.
    for (const [path, permission, operationId] of [
      ['/auth/reset/validate-password', 'PUBLIC', 'validatePassword'],
      ['/api/admin/user-admin/validate-password', 'NONE', 'validateUserPassword'],
    ] as const) {
      app.post(
        path,
        {
          config: { permission },
          schema: {
            tags,
            operationId,
            summary: 'Check a password against the password rules',
            description: '200 when the password is acceptable; 400 listing every rule it breaks.',
            body: PasswordBody,
            // 403 for a signed-in check from another site (same-origin.ts); the public one has no session.
            response: {
              200: NoBody('The password is acceptable.'),
              ...errorResponses(400, 401, ...(permission === 'NONE' ? ([403] as const) : []), 413, 415),
            },
          },
        },
        async (request, reply) => {
          checkPassword(request.body.password);
          // No body at all (the spec's 200), not the JSON text `null` the schema's type implies.
          return (reply as FastifyReply).code(200).send();
        },
      );
    }

    app.get(
      '/api/admin/user-admin/search',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'searchUsers',
          summary: 'Search users',
          description:
            'People whose name, username or email contains `q` (case-insensitive), at most 100: for pickers, so any signed-in caller may search.',
          querystring: UserSearchQuery,
          response: { 200: UserSearchSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => searchUsers(db, request.query.q),
    );

    app.get(
      '/api/admin/user-admin/access',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getBaseUsersAndGroups',
          summary: 'People and groups for pickers',
          description:
            'Every person (id, names, email, avatar) and group (id, name, member count), for any signed-in caller.',
          response: { 200: UsersAndGroupsSchema, ...errorResponses(401, 403) },
        },
      },
      () => usersAndGroups(db),
    );

    app.get(
      '/api/admin/user-admin/inactive',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getInactiveUsers',
          summary: 'List inactive users',
          description: 'People not seen for 180 days (never seen: created 180 days ago or more).',
          response: { 200: InactiveUsersSchema, ...errorResponses(401, 403) },
        },
      },
      () => listInactive(deps),
    );

    app.post(
      '/api/admin/user-admin/inactive/delete',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteInactiveUsers',
          summary: 'Delete inactive users',
          description:
            'Deletes those of the listed users who are inactive, in one transaction, each with `user-deleted`; active users, unknown ids and the caller are skipped, and the last admin is kept.',
          body: IdsBody,
          response: { 200: NoBody('Done.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await deleteInactive(deps, request.body.ids, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/api/admin/user-admin/admin-count',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getAdminCount',
          summary: 'Count the admins',
          description: 'Admins with and without a password, and service accounts with the Admin root role.',
          response: { 200: AdminCountSchema, ...errorResponses(401, 403) },
        },
      },
      () => adminCount(db),
    );

    app.get(
      '/api/admin/user-admin',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getUsers',
          summary: 'List users and root roles',
          description: 'Every user (without password data) and the root roles.',
          response: { 200: UserListSchema, ...errorResponses(401, 403) },
        },
      },
      () => listAllUsers(db),
    );

    app.post(
      '/api/admin/user-admin',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createUser',
          summary: 'Create a user',
          description:
            'A username or an email is required; `rootRole` by id or name. A password, when given, must pass the password rules. 409 when the username or email is taken.',
          body: CreateUserBody,
          response: {
            201: Type.Intersect(
              [UserSchema, Type.Object({ emailSent: Type.Boolean({ description: 'Always false.' }) })],
              {
                description: 'The new user.',
              },
            ),
            ...errorResponses(400, 401, 403, 409, 413, 415),
          },
        },
      },
      async (request, reply) => {
        const user = await createUser(deps, request.body, actor(request));
        // The answer may hold the new user's one-time link (`inviteLink`).
        return noStore(reply)
          .code(201)
          .header('Location', `${user.id}`)
          .send({ ...user, emailSent: false });
      },
    );

    app.get(
      '/api/admin/user-admin/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getUser',
          summary: 'Get a user',
          description: 'One user; 404 when there is none with that id.',
          params: UserParams,
          response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      (request) => getUser(db, request.params.id),
    );

    app.put(
      '/api/admin/user-admin/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateUser',
          summary: 'Update a user',
          description:
            'Changes name, email and root role; omitted fields keep their value. The last Admin keeps the Admin role.',
          params: UserParams,
          body: UpdateUserBody,
          response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      (request) => changeUser(deps, request.params.id, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/user-admin/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteUser',
          summary: 'Delete a user',
          description:
            'Removes the user with their sessions, tokens and roles; their events keep the name they recorded. Nobody deletes themselves or the last Admin.',
          params: UserParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeUser(deps, request.params.id, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.post(
      '/api/admin/user-admin/:id/change-password',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'changeUserPassword',
          summary: "Set a user's password",
          description: 'The password must pass the password rules; the user is signed out everywhere.',
          params: UserParams,
          body: PasswordBody,
          response: { 200: NoBody('Password set.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await changePassword(deps, request.params.id, request.body.password, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
