import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { HealthHistoryQuery, HealthHistorySchema } from './health-history.schemas.js';
import { getHealthHistory } from './health-history.service.js';
import { ProjectIdParams } from './projects.schemas.js';

/** Project health over time (issue 16): this service's own extension, not in Unleash. */
export const healthHistoryRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/health-history',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Projects'],
          operationId: 'getProjectHealthHistory',
          summary: 'Get the health of a project over time',
          description:
            "The project's health, flags, stale and potentially stale flags per UTC day over the last `days` days (default 30), oldest first: past days as recorded by the health job, today computed when asked. Not in Unleash.",
          params: ProjectIdParams,
          querystring: HealthHistoryQuery,
          response: { 200: HealthHistorySchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getHealthHistory(deps, request.params.projectId, request.query.days ?? 30),
    );
  });
