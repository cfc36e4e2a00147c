import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { invalid } from '../../platform/http/errors.js';
import { IfMatchHeaders, withEtag } from '../../platform/http/etag.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { type Applier, againstIfMatch, changeTarget } from '../changes/index.js';
import {
  ConstraintBody,
  CreateStrategyBody,
  PatchBody,
  SortOrderBody,
  UpdateStrategyBody,
} from '../shapes/index.js';
import { constraintProblems } from './constraints.validate.js';
import { patchStrategy } from './strategies.requests.js';
import {
  BulkEnvironmentParams,
  BulkFlagsBody,
  FlagEnvironmentParams,
  StrategyListSchema,
  StrategyParams,
  StrategySchema,
} from './strategies.schemas.js';
import { getStrategies, getStrategy } from './strategies.service.js';

const BASE = '/api/admin/projects/:projectId/features/:featureName/environments/:environment';
const NoBody = Type.Null({ description: 'No body.' });
const tags = ['Features'];
const ETAG =
  'The `ETag` header identifies it; send it as `If-Match` with a PUT, PATCH or DELETE of the strategy to refuse the write (412) if the strategy changed meanwhile.';
const IF_MATCH =
  " With `If-Match` (the strategy's ETag), a strategy that changed since it was read is refused with 412 and nothing changes.";

export const strategyRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    app.post(
      '/api/admin/constraints/validate',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'validateConstraint',
          summary: 'Validate a constraint',
          description:
            'Checks a constraint as strategies check theirs: an operator of the 19, `values` or `value` as the operator needs, and values that parse for it (dates, semantic versions, numbers, addresses). 204 when valid; 400 with every problem otherwise. The context field need not be defined, as for strategies.',
          body: ConstraintBody,
          response: {
            204: Type.Null({ description: 'The constraint is valid.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        const problems = constraintProblems(request.body, '/body');
        if (problems.length > 0) throw invalid((problems[0] as { message: string }).message, problems);
        return sendEmpty(reply, 204);
      },
    );

    for (const enabled of [true, false]) {
      app.post(
        `/api/admin/projects/:projectId/bulk_features/environments/:environment/${enabled ? 'on' : 'off'}`,
        {
          config: { permission: 'UPDATE_FEATURE_ENVIRONMENT' },
          schema: {
            tags,
            operationId: enabled ? 'bulkToggleFeaturesEnvironmentOn' : 'bulkToggleFeaturesEnvironmentOff',
            summary: enabled ? 'Enable several flags' : 'Disable several flags',
            description:
              'Turns the listed flags of the project on or off in the environment, in one transaction (all or nothing: a flag not in the project is a 404 and nothing changes), each as `…/on` or `…/off` would, with its events.',
            params: BulkEnvironmentParams,
            body: BulkFlagsBody,
            response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
          },
        },
        async (request, reply) => {
          const { projectId: project, environment } = request.params;
          // In name order, the lock order: each flag's events as one request at a time records them.
          const flags = [...new Set(request.body.features)].sort();
          const list = flags.map((feature) => ({
            action: 'updateEnabled' as const,
            project,
            feature,
            environment,
            payload: { enabled },
          }));
          await changes.apply(deps, list, actor(request));
          return reply.code(200).send(null);
        },
      );

      app.post(
        `${BASE}/${enabled ? 'on' : 'off'}`,
        {
          // The toggle's change checks maintenance mode itself (updateEnabledChange).
          config: { permission: 'UPDATE_FEATURE_ENVIRONMENT', maintenance: 'handler' },
          schema: {
            tags,
            operationId: enabled ? 'toggleFeatureEnvironmentOn' : 'toggleFeatureEnvironmentOff',
            summary: enabled ? 'Enable a feature flag' : 'Disable a feature flag',
            description: enabled
              ? 'Turns the flag on in the environment (no body). Without an enabled strategy, adds the project environment default strategy, else flexibleRollout 100% (`feature-strategy-add`); records `feature-environment-enabled` when the state changes.'
              : 'Turns the flag off in the environment (no body); records `feature-environment-disabled` when the state changes.',
            params: FlagEnvironmentParams,
            response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          const change = {
            action: 'updateEnabled' as const,
            ...changeTarget(request.params),
            payload: { enabled },
          };
          await changes.apply(deps, [change], actor(request));
          return reply.code(200).send(null);
        },
      );
    }

    app.get(
      `${BASE}/strategies`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getFeatureStrategies',
          summary: 'Get feature flag strategies',
          description: 'The strategies of the flag in the environment, in evaluation order.',
          params: FlagEnvironmentParams,
          response: { 200: StrategyListSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getStrategies(deps, request.params),
    );

    app.post(
      `${BASE}/strategies`,
      {
        config: { permission: 'CREATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'addFeatureStrategy',
          summary: 'Add a strategy to a feature flag',
          description:
            'Adds an activation strategy (validated name, parameters, constraints, variants, segments); records `feature-strategy-add`.',
          params: FlagEnvironmentParams,
          body: CreateStrategyBody,
          response: { 200: StrategySchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => {
        const change = {
          action: 'addStrategy' as const,
          ...changeTarget(request.params),
          payload: request.body,
        };
        return (await changes.apply(deps, [change], actor(request)))[0];
      },
    );

    app.post(
      `${BASE}/strategies/set-sort-order`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'setStrategySortOrder',
          summary: 'Set strategy sort order',
          description: 'Sets the sort order of the listed strategies; records `strategy-order-changed`.',
          params: FlagEnvironmentParams,
          body: SortOrderBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const change = {
          action: 'reorderStrategy' as const,
          ...changeTarget(request.params),
          payload: request.body,
        };
        await changes.apply(deps, [change], actor(request));
        return reply.code(200).send(null);
      },
    );

    app.get(
      `${BASE}/strategies/:strategyId`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getFeatureStrategy',
          summary: 'Get a strategy configuration',
          description: `One strategy of the flag in the environment. ${ETAG}`,
          params: StrategyParams,
          response: { 200: StrategySchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) =>
        withEtag(reply, await getStrategy(deps, request.params, request.params.strategyId)),
    );

    app.put(
      `${BASE}/strategies/:strategyId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'updateFeatureStrategy',
          summary: 'Update a strategy',
          description: `Changes the properties sent (absent keeps, null clears the title); records \`feature-strategy-update\`.${IF_MATCH}`,
          params: StrategyParams,
          headers: IfMatchHeaders,
          body: UpdateStrategyBody,
          response: { 200: StrategySchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) => {
        const { strategyId: id } = request.params;
        const after = await againstIfMatch(
          request.headers['if-match'],
          () => getStrategy(deps, request.params, id),
          async (snapshot) => {
            const payload = { ...request.body, id, snapshot };
            const change = { action: 'updateStrategy' as const, ...changeTarget(request.params), payload };
            return (await changes.apply(deps, [change], actor(request)))[0];
          },
        );
        return withEtag(reply, after);
      },
    );

    app.patch(
      `${BASE}/strategies/:strategyId`,
      {
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'patchFeatureStrategy',
          summary: 'Change specific properties of a strategy',
          description: `Applies a JSON Patch (RFC 6902) to the strategy; the result is validated like an update. Records \`feature-strategy-update\`.${IF_MATCH}`,
          params: StrategyParams,
          headers: IfMatchHeaders,
          body: PatchBody,
          response: { 200: StrategySchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) =>
        withEtag(
          reply,
          await patchStrategy(
            deps,
            changes,
            request.params,
            request.params.strategyId,
            request.body,
            actor(request),
            request.headers['if-match'],
          ),
        ),
    );

    app.delete(
      `${BASE}/strategies/:strategyId`,
      {
        config: { permission: 'DELETE_FEATURE_STRATEGY' },
        schema: {
          tags,
          operationId: 'deleteFeatureStrategy',
          summary: 'Delete a strategy from a feature flag',
          description: `Removes the strategy and its segment links; records \`feature-strategy-remove\`.${IF_MATCH}`,
          params: StrategyParams,
          headers: IfMatchHeaders,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 412) },
        },
      },
      async (request, reply) => {
        const { strategyId: id } = request.params;
        await againstIfMatch(
          request.headers['if-match'],
          () => getStrategy(deps, request.params, id),
          async (snapshot) => {
            const change = {
              action: 'deleteStrategy' as const,
              ...changeTarget(request.params),
              payload: { id, snapshot },
            };
            await changes.apply(deps, [change], actor(request));
          },
        );
        return reply.code(200).send(null);
      },
    );
  });
