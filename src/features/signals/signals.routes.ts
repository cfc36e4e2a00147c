import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor, headerSecret } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { type Intake, intakeOf, receiveSignal } from './signals.intake.js';
import {
  CreatedSignalEndpointTokenSchema,
  EndpointSignalListSchema,
  IntakeParams,
  PageQuery,
  SignalEndpointBody,
  SignalEndpointListSchema,
  SignalEndpointParams,
  SignalEndpointSchema,
  SignalEndpointTokenBody,
  SignalEndpointTokenListSchema,
  SignalEndpointTokenParams,
  SignalEndpointTokenSchema,
  SignalQuery,
  SignalQueryResponseSchema,
} from './signals.schemas.js';
import {
  changeEndpoint,
  changeToken,
  createEndpoint,
  createToken,
  getEndpoint,
  getEndpointSignals,
  getEndpoints,
  getSignals,
  getTokens,
  removeEndpoint,
  removeToken,
} from './signals.service.js';

const tags = ['Signals'];
const BASE = '/api/admin/signal-endpoints';
const reads = errorResponses(400, 401, 403, 404);
const writes = errorResponses(400, 401, 403, 404, 409, 413, 415);

declare module 'fastify' {
  interface FastifyRequest {
    signalIntake?: Intake;
  }
}

/** Signal endpoints and their tokens (ADMIN, at Unleash's paths), and the intake they receive signals at. */
export const signalRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.decorateRequest('signalIntake', undefined);

    app.post(
      '/api/signal-endpoint/:name',
      {
        config: { permission: 'PUBLIC' },
        // The endpoint's token is checked before the body is read: a caller without one is 401.
        onRequest: async (request) => {
          const header = request.headers.authorization;
          const { name } = request.params as { name: string };
          request.signalIntake = await intakeOf(deps, name, header ? headerSecret(header) : undefined);
        },
        schema: {
          tags,
          operationId: 'receiveSignal',
          summary: 'Send a signal',
          description:
            'Stores the JSON body as a signal of the named endpoint (public route: the endpoint’s own token, `Authorization: Bearer <token>`, is required); the action sets that listen to it then run.',
          params: IntakeParams,
          body: Type.Optional(Type.Unknown({ description: 'Any JSON: the signal’s payload.' })),
          response: { 202: NoBody('Stored.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await receiveSignal(deps, request.signalIntake as Intake, request.body ?? {});
        return sendEmpty(reply, 202);
      },
    );

    app.get(
      BASE,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getSignalEndpoints',
          summary: 'All signal endpoints',
          description: 'Every signal endpoint with its tokens (never their secrets).',
          response: { 200: SignalEndpointListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getEndpoints(deps),
    );

    app.post(
      BASE,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createSignalEndpoint',
          summary: 'Create a signal endpoint',
          description: 'Creates an endpoint (without tokens); records `signal-endpoint-created`.',
          body: SignalEndpointBody,
          response: { 201: SignalEndpointSchema, ...writes },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createEndpoint(deps, request.body, actor(request))),
    );

    app.get(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getSignalEndpoint',
          summary: 'A signal endpoint',
          description: 'The endpoint with its tokens.',
          params: SignalEndpointParams,
          response: { 200: SignalEndpointSchema, ...reads },
        },
      },
      async (request) => getEndpoint(deps, request.params.id),
    );

    app.put(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateSignalEndpoint',
          summary: 'Change a signal endpoint',
          description: 'Replaces its name, description and state; records `signal-endpoint-updated`.',
          params: SignalEndpointParams,
          body: SignalEndpointBody,
          response: { 200: SignalEndpointSchema, ...writes },
        },
      },
      async (request) => changeEndpoint(deps, request.params.id, request.body, actor(request)),
    );

    for (const state of ['on', 'off'] as const) {
      app.post(
        `${BASE}/:id/${state}`,
        {
          config: { permission: 'ADMIN' },
          schema: {
            tags,
            operationId: state === 'on' ? 'enableSignalEndpoint' : 'disableSignalEndpoint',
            summary: state === 'on' ? 'Enable a signal endpoint' : 'Disable a signal endpoint',
            description: `${state === 'on' ? 'It accepts signals again' : 'It refuses signals (403)'}; records \`signal-endpoint-updated\`.`,
            params: SignalEndpointParams,
            response: { 200: SignalEndpointSchema, ...reads },
          },
        },
        async (request) =>
          changeEndpoint(deps, request.params.id, { enabled: state === 'on' }, actor(request)),
      );
    }

    app.delete(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteSignalEndpoint',
          summary: 'Delete a signal endpoint',
          description:
            'Deletes the endpoint with its tokens and signals; 409 while action sets use it. Records `signal-endpoint-deleted`.',
          params: SignalEndpointParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        await removeEndpoint(deps, request.params.id, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      `${BASE}/:id/tokens`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getSignalEndpointTokens',
          summary: 'A signal endpoint’s tokens',
          description: 'Its tokens, without their secrets.',
          params: SignalEndpointParams,
          response: { 200: SignalEndpointTokenListSchema, ...reads },
        },
      },
      async (request) => getTokens(deps, request.params.id),
    );

    app.post(
      `${BASE}/:id/tokens`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createSignalEndpointToken',
          summary: 'Create a signal endpoint token',
          description:
            'A new token; its secret is in this answer only (stored as its hash). Records `signal-endpoint-token-created`.',
          params: SignalEndpointParams,
          body: SignalEndpointTokenBody,
          response: { 201: CreatedSignalEndpointTokenSchema, ...writes },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createToken(deps, request.params.id, request.body.name, actor(request))),
    );

    app.put(
      `${BASE}/:id/tokens/:tokenId`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateSignalEndpointToken',
          summary: 'Rename a signal endpoint token',
          description: 'Records `signal-endpoint-token-updated`.',
          params: SignalEndpointTokenParams,
          body: SignalEndpointTokenBody,
          response: { 200: SignalEndpointTokenSchema, ...writes },
        },
      },
      async (request) =>
        changeToken(deps, request.params.id, request.params.tokenId, request.body.name, actor(request)),
    );

    app.delete(
      `${BASE}/:id/tokens/:tokenId`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteSignalEndpointToken',
          summary: 'Delete a signal endpoint token',
          description: 'The token stops working at once; records `signal-endpoint-token-deleted`.',
          params: SignalEndpointTokenParams,
          response: { 200: NoBody('Deleted.'), ...reads },
        },
      },
      async (request, reply) => {
        await removeToken(deps, request.params.id, request.params.tokenId, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      `${BASE}/:id/signals`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getSignalEndpointSignals',
          summary: 'A signal endpoint’s signals',
          description: 'The signals it received that are still kept, newest first.',
          params: SignalEndpointParams,
          querystring: PageQuery,
          response: { 200: EndpointSignalListSchema, ...reads },
        },
      },
      async (request) =>
        getEndpointSignals(deps, request.params.id, request.query.limit ?? 50, request.query.offset ?? 0),
    );

    app.get(
      '/api/admin/signals',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getSignals',
          summary: 'Signals of every endpoint',
          description:
            'The kept signals of every endpoint, newest first, between `from` and `to` when given.',
          querystring: SignalQuery,
          response: { 200: SignalQueryResponseSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) =>
        getSignals(deps, {
          ...request.query,
          limit: request.query.limit ?? 50,
          offset: request.query.offset ?? 0,
        }),
    );
  });
