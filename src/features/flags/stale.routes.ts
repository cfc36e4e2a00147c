import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { ProjectParams } from '../shapes/index.js';
import { StaleBody } from './stale.schemas.js';
import { markStale } from './stale.service.js';

/** Mark flags stale or not. */
export const staleRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.post(
      '/api/admin/projects/:projectId/stale',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'staleFeatures',
          summary: 'Mark features as stale / not stale',
          description:
            'Marks the listed active flags of the project stale or not stale; names of other flags are ignored. Records `feature-stale-on` or `feature-stale-off` per flag that changed.',
          params: ProjectParams,
          body: StaleBody,
          response: { 202: NoBody('Marked.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await markStale(deps, request.params.projectId, request.body, actor(request));
        return sendEmpty(reply, 202);
      },
    );
  });
