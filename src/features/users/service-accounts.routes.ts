import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { perCallerRateLimit } from '../../platform/http/security-headers.js';
import { CreatePatBody, PatSchema } from './pats.schemas.js';
import {
  CreateServiceAccountBody,
  ServiceAccountListSchema,
  ServiceAccountParams,
  ServiceAccountSchema,
  ServiceAccountTokenListSchema,
  ServiceAccountTokenParams,
  UpdateServiceAccountBody,
} from './service-accounts.schemas.js';
import {
  changeServiceAccount,
  createServiceAccount,
  createToken,
  listServiceAccounts,
  listTokens,
  removeServiceAccount,
  removeToken,
} from './service-accounts.service.js';

const tags = ['Service accounts'];

/**
 * Service accounts and their tokens (`/api/admin/service-account`, as Unleash Enterprise has
 * them; decisions in service-accounts.service.ts). ADMIN for everything.
 */
export const serviceAccountRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/service-account',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getServiceAccounts',
          summary: 'List service accounts',
          description: 'Every service account with its tokens (without secrets), and the root roles.',
          response: { 200: ServiceAccountListSchema, ...errorResponses(401, 403) },
        },
      },
      () => listServiceAccounts(deps.database.db),
    );

    app.post(
      '/api/admin/service-account',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createServiceAccount',
          summary: 'Create a service account',
          description:
            'A user without a password that acts through its tokens with `rootRole` (by id or name, built-in or custom). 409 when the username is taken by a user or service account. Records `service-account-created`.',
          body: CreateServiceAccountBody,
          response: { 201: ServiceAccountSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const account = await createServiceAccount(deps, request.body, actor(request));
        return reply.code(201).header('Location', `service-account/${account.id}`).send(account);
      },
    );

    app.put(
      '/api/admin/service-account/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateServiceAccount',
          summary: 'Update a service account',
          description:
            'Changes the name and root role; omitted fields keep their value, the username stays. Its tokens act with the new role at once. Records `service-account-updated`.',
          params: ServiceAccountParams,
          body: UpdateServiceAccountBody,
          response: { 200: ServiceAccountSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      (request) => changeServiceAccount(deps, request.params.id, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/service-account/:id',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteServiceAccount',
          summary: 'Delete a service account',
          description:
            'Removes the account with its tokens, which stop working at once; its events keep the name they recorded. Records `service-account-deleted`.',
          params: ServiceAccountParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeServiceAccount(deps, request.params.id, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/api/admin/service-account/:id/token',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getServiceAccountTokens',
          summary: "List a service account's tokens",
          description: 'Without secrets. 404 when there is no service account with that id.',
          params: ServiceAccountParams,
          response: { 200: ServiceAccountTokenListSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      (request) => listTokens(deps, request.params.id),
    );

    app.post(
      '/api/admin/service-account/:id/token',
      {
        config: {
          permission: 'ADMIN',
          rateLimit: perCallerRateLimit(deps.config.TOKEN_CREATE_RATE_LIMIT),
        },
        schema: {
          tags,
          operationId: 'createServiceAccountToken',
          summary: 'Create a token for a service account',
          description:
            'A `user:` token that acts as the service account until `expiresAt` (required, in the future). The secret is in this answer only. Records `pat-created`.',
          params: ServiceAccountParams,
          body: CreatePatBody,
          response: { 201: PatSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) =>
        noStore(reply)
          .code(201)
          .send(await createToken(deps, request.params.id, request.body, actor(request))),
    );

    app.delete(
      '/api/admin/service-account/:id/token/:tokenId',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteServiceAccountToken',
          summary: "Delete a service account's token",
          description:
            'It stops working at once. 404 when the service account or its token does not exist. Records `pat-deleted`.',
          params: ServiceAccountTokenParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeToken(deps, request.params.id, request.params.tokenId, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
