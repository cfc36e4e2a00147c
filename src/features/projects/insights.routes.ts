import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { DoraSchema, ProjectInsightsSchema } from './insights.schemas.js';
import { getDora, getInsights } from './insights.service.js';
import { ProjectIdParams } from './projects.schemas.js';

export const insightsRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/insights',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getProjectInsights',
          summary: 'Get an overview of a project insights.',
          description:
            'Health and technical debt with their counts, 30-day statistics, lead time for changes, flags per type and members, computed from the current data.',
          params: ProjectIdParams,
          response: { 200: ProjectInsightsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getInsights(deps, reads.of(request), request.params.projectId),
    );

    app.get(
      '/api/admin/projects/:projectId/dora',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getProjectDora',
          summary: 'Get an overview project dora metrics.',
          description:
            'Lead time for changes: per flag, whole days from creation to its first enabling in a production environment (from the event log), and the mean over release flags.',
          params: ProjectIdParams,
          response: { 200: DoraSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getDora(deps, request.params.projectId),
    );
  });
