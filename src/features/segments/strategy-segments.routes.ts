import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import { StrategySegmentsBody } from './strategy-segments.schemas.js';
import { setSegmentsOfStrategy } from './strategy-segments.service.js';

export const strategySegmentRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    app.post(
      '/api/admin/segments/strategies',
      {
        // The project and environment are in the body, which the permission check (made before the
        // body is read, ADR 0005) cannot see: only callers holding the permission in every project
        // and environment (Admins, admin tokens) pass. Others set segments by updating the strategy.
        config: { permission: 'UPDATE_FEATURE_STRATEGY' },
        schema: {
          tags: ['Strategies'],
          operationId: 'updateFeatureStrategySegments',
          summary: 'Update strategy segments',
          description:
            'Sets the segments of the strategy to exactly the listed ones (the others are removed from it) and records `feature-strategy-update`. Answers 201 with the request as applied.',
          body: StrategySegmentsBody,
          response: { 201: StrategySegmentsBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await setSegmentsOfStrategy(deps, changes, request.body, actor(request))),
    );
  });
