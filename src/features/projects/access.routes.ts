import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { ProjectParams } from '../shapes/index.js';
import {
  AccessBody,
  AccessGroupParams,
  AccessUserParams,
  ProjectAccessSchema,
  RolesBody,
} from './access.schemas.js';
import { grantAccess, readAccess, setHolderRoles } from './access.service.js';

const tags = ['Projects'];

/**
 * Who holds which role in a project (as Unleash Enterprise; here in the open core). Changing it
 * needs the project Owner's access permissions (or ADMIN).
 */
export const accessRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/access',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectAccess',
          summary: "The project's users, groups and roles",
          description:
            'Every user and group with a role in the project, and the roles that can be given. 404 for an unknown project.',
          params: ProjectParams,
          response: { 200: ProjectAccessSchema, ...errorResponses(401, 404) },
        },
      },
      (request) => readAccess(deps.database.db, request.params.projectId),
    );

    app.post(
      '/api/admin/projects/:projectId/access',
      {
        config: { permission: 'PROJECT_USER_ACCESS_WRITE' },
        schema: {
          tags,
          operationId: 'addAccessToProject',
          summary: 'Give roles to users and groups in the project',
          description:
            'Every listed role to every listed user and group; roles already held stay. Event `project-access-added`.',
          params: ProjectParams,
          body: AccessBody,
          response: { 200: NoBody('Given.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await grantAccess(deps, request.params.projectId, request.body, actor(request));
        return reply.code(200).send(null);
      },
    );

    for (const [kind, permission, params] of [
      ['users', 'PROJECT_USER_ACCESS_WRITE', AccessUserParams],
      ['groups', 'PROJECT_GROUP_ACCESS_WRITE', AccessGroupParams],
    ] as const) {
      const path = `/api/admin/projects/:projectId/${kind}/:${kind === 'users' ? 'userId' : 'groupId'}/roles`;
      const holder = (p: { userId?: number; groupId?: number }) =>
        kind === 'users' ? { userId: p.userId as number } : { groupId: p.groupId as number };
      const noun = kind === 'users' ? 'user' : 'group';
      app.put(
        path,
        {
          config: { permission },
          schema: {
            tags,
            operationId: kind === 'users' ? 'setUserProjectRoles' : 'setGroupProjectRoles',
            summary: `Set the project roles of a ${noun}`,
            description: `Replaces the ${noun}'s roles in the project; an empty list removes them. Event \`project-access-${noun}-roles-updated\`.`,
            params,
            body: RolesBody,
            response: { 200: NoBody('Set.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
          },
        },
        async (request, reply) => {
          await setHolderRoles(
            deps,
            request.params.projectId,
            holder(request.params),
            request.body.roles,
            actor(request),
          );
          return reply.code(200).send(null);
        },
      );
      app.delete(
        path,
        {
          config: { permission },
          schema: {
            tags,
            operationId: kind === 'users' ? 'removeUserFromProject' : 'removeGroupFromProject',
            summary: `Remove a ${noun} from the project`,
            description: `Takes every project role of the ${noun} here. Event \`project-access-user-roles-deleted\` (as Unleash names it for both).`,
            params,
            response: { 200: NoBody('Removed.'), ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          await setHolderRoles(deps, request.params.projectId, holder(request.params), [], actor(request));
          return reply.code(200).send(null);
        },
      );
    }
  });
