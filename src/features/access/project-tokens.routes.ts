import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { perCallerRateLimit } from '../../platform/http/security-headers.js';
import { ProjectIdParam } from '../shapes/index.js';
import { ApiTokenSchema, ApiTokensSchema } from './api-tokens.schemas.js';
import { CreateProjectApiTokenBody, ProjectTokenParams } from './project-tokens.schemas.js';
import {
  createProjectApiToken,
  deleteProjectApiToken,
  listProjectApiTokens,
} from './project-tokens.service.js';

const ProjectParams = Type.Object({
  projectId: ProjectIdParam,
});

/** API tokens of one project, managed with the project's own permissions. */
export const projectTokenRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/api-tokens',
      {
        config: { permission: 'READ_PROJECT_API_TOKEN' },
        schema: {
          tags: ['Projects'],
          operationId: 'getProjectApiTokens',
          summary: 'Get api tokens for project.',
          description:
            'The SDK tokens scoped to exactly this project, newest first, without secrets (`secret` holds the display prefix).',
          params: ProjectParams,
          response: { 200: ApiTokensSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => listProjectApiTokens(deps, request.params.projectId),
    );

    app.post(
      '/api/admin/projects/:projectId/api-tokens',
      {
        config: {
          permission: 'CREATE_PROJECT_API_TOKEN',
          rateLimit: perCallerRateLimit(deps.config.TOKEN_CREATE_RATE_LIMIT),
        },
        schema: {
          tags: ['Projects'],
          operationId: 'createProjectApiToken',
          summary: 'Create a project API token.',
          description:
            'Creates a backend (alias client) or frontend token for this project only and records `api-token-created`. The response holds the secret; it is shown only this once.',
          params: ProjectParams,
          body: CreateProjectApiTokenBody,
          response: { 201: ApiTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) =>
        noStore(reply)
          .code(201)
          .send(await createProjectApiToken(deps, request.params.projectId, request.body, actor(request))),
    );

    app.delete(
      '/api/admin/projects/:projectId/api-tokens/:token',
      {
        config: { permission: 'DELETE_PROJECT_API_TOKEN' },
        schema: {
          tags: ['Projects'],
          operationId: 'deleteProjectApiToken',
          summary: 'Delete a project API token.',
          description:
            "Deletes a token of this project (secret in the path) and records `api-token-deleted`. An unknown token: 200, nothing changes; a token that is not this project's own: 404.",
          params: ProjectTokenParams,
          response: { 200: Type.Null({ description: 'Done; no body.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await deleteProjectApiToken(deps, request.params.projectId, request.params.token, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
