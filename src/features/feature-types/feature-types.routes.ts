import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  FeatureTypeParams,
  FeatureTypeSchema,
  FeatureTypesSchema,
  LifetimeBody,
} from './feature-types.schemas.js';
import { getFeatureTypes, updateLifetime } from './feature-types.service.js';

const tags = ['Feature Types'];

export const featureTypeRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/feature-types',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getAllFeatureTypes',
          summary: 'Get all flag types',
          description: 'Every flag type with its expected lifetime, which decides potential staleness.',
          response: { 200: FeatureTypesSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getFeatureTypes(deps),
    );

    app.put(
      '/api/admin/feature-types/:id/lifetime',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateFeatureTypeLifetime',
          summary: 'Update the expected lifetime of a flag type',
          description:
            'Sets the days after which flags of this type are potentially stale (null or 0: never), records `feature-type-updated` and re-checks every flag at once.',
          params: FeatureTypeParams,
          body: LifetimeBody,
          response: { 200: FeatureTypeSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => updateLifetime(deps, request.params.id, request.body.lifetimeDays, actor(request)),
    );
  });
