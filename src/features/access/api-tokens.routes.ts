import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { perCallerRateLimit } from '../../platform/http/security-headers.js';
import {
  ApiTokenSchema,
  ApiTokensSchema,
  CreateApiTokenBody,
  TokenNameParams,
  TokenParams,
  UpdateApiTokenBody,
} from './api-tokens.schemas.js';
import { createApiToken, deleteApiToken, listApiTokens, updateApiToken } from './api-tokens.service.js';
import { projectTokenRoutes } from './project-tokens.routes.js';

const Done = Type.Null({ description: 'Done; no body.' });
const done = (reply: FastifyReply) => reply.code(200).send();

/** API tokens: listed without secrets; the secret is shown once, at creation. */
export const apiTokenRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/api-tokens',
      {
        config: { permission: 'READ_API_TOKEN' },
        schema: {
          tags: ['API tokens'],
          operationId: 'getAllApiTokens',
          summary: 'Get API tokens',
          description:
            'Every API token, newest first. Secrets are never shown: `secret` holds the display prefix.',
          response: { 200: ApiTokensSchema, ...errorResponses(401, 403) },
        },
      },
      async () => listApiTokens(deps),
    );

    app.get(
      '/api/admin/api-tokens/:name',
      {
        config: { permission: 'READ_API_TOKEN' },
        schema: {
          tags: ['API tokens'],
          operationId: 'getApiTokensByName',
          summary: 'Get API tokens by name',
          description: 'The API tokens with this name (without secrets), newest first.',
          params: TokenNameParams,
          response: { 200: ApiTokensSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => listApiTokens(deps, request.params.name),
    );

    app.post(
      '/api/admin/api-tokens',
      {
        config: {
          permission: 'CREATE_API_TOKEN',
          rateLimit: perCallerRateLimit(deps.config.TOKEN_CREATE_RATE_LIMIT),
        },
        schema: {
          tags: ['API tokens'],
          operationId: 'createApiToken',
          summary: 'Create API token',
          description:
            'Creates a client (alias backend), frontend or admin token for an environment and projects, and records `api-token-created`. The response holds the secret; it is shown only this once.',
          body: CreateApiTokenBody,
          response: { 201: ApiTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) =>
        noStore(reply)
          .code(201)
          .send(await createApiToken(deps, request.body, actor(request))),
    );

    app.put(
      '/api/admin/api-tokens/:token',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['API tokens'],
          operationId: 'updateApiToken',
          summary: 'Update API token',
          description:
            'Sets the expiry of the token whose secret is in the path and records `api-token-updated`. An unknown token: 200, nothing changes.',
          params: TokenParams,
          body: UpdateApiTokenBody,
          response: { 200: Done, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await updateApiToken(deps, request.params.token, request.body, actor(request));
        return done(reply);
      },
    );

    app.delete(
      '/api/admin/api-tokens/:token',
      {
        config: { permission: 'DELETE_API_TOKEN' },
        schema: {
          tags: ['API tokens'],
          operationId: 'deleteApiToken',
          summary: 'Delete API token',
          description:
            'Deletes the token whose secret is in the path and records `api-token-deleted`. An unknown token: 200, nothing changes. This instance refuses the token at once; other instances within 5 seconds.',
          params: TokenParams,
          response: { 200: Done, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        await deleteApiToken(deps, request.params.token, actor(request));
        return done(reply);
      },
    );

    await app.register(projectTokenRoutes(deps));
  });
