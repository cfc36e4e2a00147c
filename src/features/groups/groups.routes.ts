import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { GroupBody, GroupListSchema, GroupParams, GroupSchema } from './groups.schemas.js';
import { changeGroup, createGroup, getGroup, listAllGroups, removeGroup } from './groups.service.js';

const tags = ['Groups'];

/** User groups (`/api/admin/groups`, as Unleash Enterprise has them; here in the open core). */
export const groupRoutes = (deps: Deps) =>
  routes(async (app) => {
    const db = deps.database.db;

    app.get(
      '/api/admin/groups',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getGroups',
          summary: 'List groups',
          description: 'Every group with its members and the projects where it holds roles.',
          response: { 200: GroupListSchema, ...errorResponses(401) },
        },
      },
      () => listAllGroups(db),
    );

    app.post(
      '/api/admin/groups',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createGroup',
          summary: 'Create a group',
          description: '409 when the name is taken; 400 for unknown users or root role.',
          body: GroupBody,
          response: { 201: GroupSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const group = await createGroup(deps, request.body, actor(request));
        return reply.code(201).header('Location', `groups/${group.id}`).send(group);
      },
    );

    app.get(
      '/api/admin/groups/:groupId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getGroup',
          summary: 'Get a group',
          description: '404 when there is no group with that id.',
          params: GroupParams,
          response: { 200: GroupSchema, ...errorResponses(400, 401, 404) },
        },
      },
      (request) => getGroup(db, request.params.groupId),
    );

    app.put(
      '/api/admin/groups/:groupId',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateGroup',
          summary: 'Update a group',
          description:
            'Replaces name, description, SSO mappings and root role; `users`, when given, replaces the members (who stays keeps their joining date).',
          params: GroupParams,
          body: GroupBody,
          response: { 200: GroupSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      (request) => changeGroup(deps, request.params.groupId, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/groups/:groupId',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteGroup',
          summary: 'Delete a group',
          description: 'Its members lose the roles it gave them.',
          params: GroupParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeGroup(deps, request.params.groupId, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
