import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { MaintenanceSchema } from './maintenance.schemas.js';
import { isInMaintenance, setMaintenance } from './maintenance.service.js';

const tags = ['Maintenance'];

export const maintenanceRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/maintenance',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getMaintenance',
          summary: 'Get maintenance mode',
          description: 'Whether maintenance mode is on.',
          response: { 200: MaintenanceSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => ({ enabled: await isInMaintenance(deps, reads.of(request)) }),
    );

    app.post(
      '/api/admin/maintenance',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'toggleMaintenance',
          summary: 'Turn maintenance mode on or off',
          description:
            'While on, configuration writes through the admin API answer 503 `ServiceUnavailableError`; reads, evaluation, checks, exports and the SDK APIs keep working. Records `maintenance-mode-toggled` when the mode changes.',
          body: MaintenanceSchema,
          response: { 204: NoBody('Done.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await setMaintenance(deps, request.body.enabled, actor(request));
        return sendEmpty(reply, 204);
      },
    );
  });
