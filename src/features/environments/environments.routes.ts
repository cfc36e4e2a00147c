import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import {
  CreateEnvironmentBody,
  EnvironmentListSchema,
  EnvironmentParams,
  EnvironmentSchema,
  ProjectEnvironmentListSchema,
  ProjectIdParams,
  SortOrderBody,
  UpdateEnvironmentBody,
} from './environments.schemas.js';
import {
  createEnvironment,
  deleteEnvironment,
  getAllEnvironments,
  getEnvironment,
  getProjectEnvironments,
  setEnvironmentEnabled,
  updateEnvironment,
  updateSortOrder,
} from './environments.service.js';

const tags = ['Environments'];
const Empty = (description: string) => Type.Null({ description });

export const environmentRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.put(
      '/api/admin/environments/sort-order',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateSortOrder',
          summary: 'Update the sort order of environments',
          description:
            'Sets the sort order of the named environments (all or nothing; an unknown name is a 404); others keep theirs. Each change records `environment-updated`.',
          body: SortOrderBody,
          response: {
            200: Empty('Done; the response has no body.'),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await updateSortOrder(deps, request.body, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/api/admin/environments/project/:projectId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProjectEnvironments',
          summary: 'Get the environments of a project',
          description:
            "Every environment, with `enabled` telling whether the project has it, and the project's tokens and enabled flags there.",
          params: ProjectIdParams,
          response: { 200: ProjectEnvironmentListSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getProjectEnvironments(deps, reads.of(request), request.params.projectId),
    );

    app.get(
      '/api/admin/environments',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAllEnvironments',
          summary: 'Get all environments',
          description:
            'Every environment by sort order, then name, with its project, token and enabled-flag counts.',
          response: { 200: EnvironmentListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getAllEnvironments(deps),
    );

    app.post(
      '/api/admin/environments',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createEnvironment',
          summary: 'Create an environment',
          description: 'Creates an environment (in no project yet) and records `environment-created`.',
          body: CreateEnvironmentBody,
          response: { 201: EnvironmentSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return createEnvironment(deps, request.body, actor(request));
      },
    );

    app.get(
      '/api/admin/environments/:name',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getEnvironment',
          summary: 'Get an environment',
          description: 'The environment with its counts.',
          params: EnvironmentParams,
          response: { 200: EnvironmentSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => getEnvironment(deps, request.params.name),
    );

    app.put(
      '/api/admin/environments/update/:name',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateEnvironment',
          summary: 'Update an environment',
          description:
            'Changes type and/or sortOrder (absent keeps) and records `environment-updated`. Protected environments cannot be changed.',
          params: EnvironmentParams,
          body: UpdateEnvironmentBody,
          response: { 200: EnvironmentSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => updateEnvironment(deps, request.params.name, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/environments/:name',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'removeEnvironment',
          summary: 'Delete an environment',
          description:
            'Deletes the environment with all configuration in it and records `environment-deleted`. Protected environments cannot be deleted (403 InvalidOperationError).',
          params: EnvironmentParams,
          response: { 200: Empty('Deleted.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await deleteEnvironment(deps, request.params.name, actor(request));
        return reply.code(200).send(null);
      },
    );

    for (const enabled of [true, false]) {
      app.post(
        `/api/admin/environments/:name/${enabled ? 'on' : 'off'}`,
        {
          config: { permission: 'ADMIN' },
          schema: {
            tags,
            operationId: enabled ? 'toggleEnvironmentOn' : 'toggleEnvironmentOff',
            summary: enabled ? 'Enable an environment' : 'Disable an environment',
            description: enabled
              ? 'Enables the environment (no body); records `environment-updated` when the state changes.'
              : 'Disables the environment (no body); records `environment-updated` when the state changes. The last enabled environment cannot be disabled (400).',
            params: EnvironmentParams,
            response: { 204: Empty('Done.'), ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          await setEnvironmentEnabled(deps, request.params.name, enabled, actor(request));
          return reply.code(204).send(null);
        },
      );
    }
  });
