import type { Deps } from '../../deps.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { FlagEnvironmentParams } from '../shapes/index.js';
import { LifecycleCountSchema, ValidateNameBody } from './checks.schemas.js';
import { getFlagEnvironment, getLifecycleCounts, validateFlagName } from './checks.service.js';
import { FLAG_PATH, FlagEnvironmentSchema } from './flags.schemas.js';

/** Reads and checks around flags: is a name free, one flag environment, lifecycle counts. */
export const checkRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.post(
      '/api/admin/features/validate',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'validateFeature',
          summary: 'Validate a feature flag name',
          description:
            '200 when a flag could be created with the name: URL-friendly (400 otherwise), not taken by any flag, archived or not (409), and matching the naming pattern of `projectId` when given (400).',
          body: ValidateNameBody,
          response: {
            200: NoBody('The name is free.'),
            ...errorResponses(400, 401, 403, 404, 409, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await validateFlagName(deps, request.body.name, request.body.projectId);
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      `${FLAG_PATH}/environments/:environment`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'getFeatureEnvironment',
          summary: 'Get a feature environment',
          description: 'The flag in one environment of its project: state, strategies and variants.',
          params: FlagEnvironmentParams,
          response: { 200: FlagEnvironmentSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { projectId, featureName, environment } = request.params;
        return getFlagEnvironment(
          deps,
          reads.of(request),
          projectId,
          featureName,
          environment,
          request.principal,
        );
      },
    );

    app.get(
      '/api/admin/lifecycle/count',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Lifecycle'],
          operationId: 'getFeatureLifecycleStageCount',
          summary: 'Count flags per lifecycle stage',
          description: 'How many flags (archived ones in `archived`) are in each lifecycle stage now.',
          response: { 200: LifecycleCountSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getLifecycleCounts(deps),
    );
  });
