import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  CreateStrategyBody,
  NameParams,
  StrategyDefinitionSchema,
  StrategyListSchema,
  StrategyNameParams,
  UpdateStrategyBody,
} from './strategy-definitions.schemas.js';
import * as service from './strategy-definitions.service.js';

const NoBody = Type.Null({ description: 'No body.' });

export const strategyDefinitionRoutes = (deps: Deps) =>
  routes(async (app) => {
    const tags = ['Strategies'];

    app.get(
      '/api/admin/strategies',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAllStrategies',
          summary: 'List strategy definitions',
          description: 'Built-in and custom strategy types.',
          response: { 200: StrategyListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => service.listStrategies(deps),
    );

    app.get(
      '/api/admin/strategies/:name',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getStrategy',
          summary: 'Get a strategy definition',
          description: 'One strategy type.',
          params: NameParams,
          response: { 200: StrategyDefinitionSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.getStrategy(deps, request.params.name),
    );

    app.post(
      '/api/admin/strategies',
      {
        config: { permission: 'CREATE_STRATEGY' },
        schema: {
          tags,
          operationId: 'createStrategy',
          summary: 'Create a custom strategy',
          description:
            'Creates a custom strategy type and records `strategy-created`; 409 when the name is taken.',
          body: CreateStrategyBody,
          response: { 201: StrategyDefinitionSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createStrategy(deps, request.body, actor(request))),
    );

    app.put(
      '/api/admin/strategies/:name',
      {
        config: { permission: 'UPDATE_STRATEGY' },
        schema: {
          tags,
          operationId: 'updateStrategy',
          summary: 'Update a custom strategy',
          description:
            'Replaces the parameters (and title/description when sent) and records `strategy-updated`. Built-in strategies: 403.',
          params: NameParams,
          body: UpdateStrategyBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.updateStrategy(deps, request.params.name, request.body, actor(request));
        return reply.send(null);
      },
    );

    app.delete(
      '/api/admin/strategies/:name',
      {
        config: { permission: 'DELETE_STRATEGY' },
        schema: {
          tags,
          operationId: 'removeStrategy',
          summary: 'Delete a custom strategy',
          description:
            'Deletes an unused custom strategy and records `strategy-deleted`. Built-in: 403; used by a flag: 400.',
          params: NameParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteStrategy(deps, request.params.name, actor(request));
        return reply.send(null);
      },
    );

    for (const [action, deprecated, operationId] of [
      ['deprecate', true, 'deprecateStrategy'],
      ['reactivate', false, 'reactivateStrategy'],
    ] as const) {
      app.post(
        `/api/admin/strategies/:strategyName/${action}`,
        {
          config: { permission: 'UPDATE_STRATEGY' },
          schema: {
            tags,
            operationId,
            summary: `${deprecated ? 'Deprecate' : 'Reactivate'} a strategy`,
            description: `Marks the strategy ${deprecated ? 'deprecated' : 'active'} and records \`strategy-${deprecated ? 'deprecated' : 'reactivated'}\`. Takes no body.`,
            params: StrategyNameParams,
            response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          await service.setDeprecated(deps, request.params.strategyName, deprecated, actor(request));
          return reply.send(null);
        },
      );
    }
  });
