import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { PERMISSION_CATALOG, PermissionCatalogSchema } from './permissions.js';
import {
  CreateRoleBody,
  RoleListSchema,
  RoleParams,
  RoleWithPermissionsSchema,
  UpdateRoleBody,
} from './roles.schemas.js';
import { changeRole, createRole, getRole, listRoles, removeRole } from './roles.service.js';

const tags = ['Roles'];

/**
 * Roles (`/api/admin/roles`): the built-in ones and custom root and project roles, as Unleash
 * Enterprise has them (decisions in roles.service.ts).
 */
export const roleRoutes = (deps: Deps) =>
  routes(async (app) => {
    const db = deps.database.db;

    app.get(
      '/api/admin/roles',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getRoles',
          summary: 'List roles',
          description: 'Every role, built-in and custom, root and project roles, by id.',
          response: { 200: RoleListSchema, ...errorResponses(401) },
        },
      },
      () => listRoles(db),
    );

    app.get(
      '/api/admin/permissions',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getPermissions',
          summary: 'List the permissions custom roles are made of',
          description:
            'Every permission a custom role may hold, with what it allows, where it applies (root, project, or project and environments) and the group it is shown in. This service lists them for its own web UI; Unleash Enterprise has an endpoint of this name with another shape.',
          response: { 200: PermissionCatalogSchema, ...errorResponses(401) },
        },
      },
      () => PERMISSION_CATALOG,
    );

    app.get(
      '/api/admin/roles/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getRoleById',
          summary: 'Get a role with its permissions',
          description: '404 when there is no role with that id.',
          params: RoleParams,
          response: { 200: RoleWithPermissionsSchema, ...errorResponses(400, 401, 404) },
        },
      },
      (request) => getRole(db, request.params.id),
    );

    app.post(
      '/api/admin/roles',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createRole',
          summary: 'Create a custom role',
          description:
            'A custom root role (`root-custom`: its permissions apply in every project) or a custom project role (`custom`, the default). 201 with `Location: roles/<id>`; 400 for an unknown or misplaced permission, 409 when the name is taken in any letter case. Records `role-created`.',
          body: CreateRoleBody,
          response: { 201: RoleWithPermissionsSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const role = await createRole(deps, request.body, actor(request));
        return reply.code(201).header('Location', `roles/${role.id}`).send(role);
      },
    );

    app.put(
      '/api/admin/roles/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateRole',
          summary: 'Update a custom role',
          description:
            'Sets name, and description and permissions when given (left out: kept). Built-in roles cannot be changed (403); the type cannot change (400). Takes effect at once for everyone holding the role. Records `role-updated`.',
          params: RoleParams,
          body: UpdateRoleBody,
          response: { 200: RoleWithPermissionsSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      (request) => changeRole(deps, request.params.id, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/roles/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteRole',
          summary: 'Delete a custom role',
          description:
            'Built-in roles cannot be deleted (403); a role that users, service accounts, groups or invite links hold is a 400 naming them. Records `role-deleted`.',
          params: RoleParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeRole(deps, request.params.id, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
