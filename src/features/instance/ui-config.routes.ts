import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { backupRoutes } from './backup.routes.js';
import { InstanceStatisticsSchema } from './statistics.schemas.js';
import { getStatistics, getStatisticsCsv } from './statistics.service.js';
import { UiConfigSchema } from './ui-config.schemas.js';
import { uiConfig } from './ui-config.service.js';

export const instanceRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/ui-config',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Admin UI'],
          operationId: 'getUiConfig',
          summary: 'Get the UI configuration',
          description:
            'Version, public URL, base path, maintenance mode and the frontend API origins, for the admin UI.',
          response: { 200: UiConfigSchema, ...errorResponses(401) },
        },
      },
      async (request) => uiConfig(deps, reads.of(request)),
    );

    app.get(
      '/api/admin/instance-admin/statistics',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Instance Admin'],
          operationId: 'getInstanceAdminStats',
          summary: 'Get instance statistics',
          description:
            'Counts over the whole instance: users, flags, projects, environments, tokens, changes to production, imports and exports, with a SHA-256 `sum`.',
          response: { 200: InstanceStatisticsSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getStatistics(deps),
    );

    app.get(
      '/api/admin/instance-admin/statistics/csv',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Instance Admin'],
          operationId: 'getInstanceAdminStatsCsv',
          summary: 'Get instance statistics as CSV',
          description:
            'The same statistics as a header line and a value line (`text/csv`, nested values as JSON).',
          response: { 200: Type.String({ description: 'The CSV text.' }), ...errorResponses(401, 403) },
        },
      },
      async (_request, reply) =>
        reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', 'attachment; filename="instance-statistics.csv"')
          .send(await getStatisticsCsv(deps)),
    );

    await app.register(backupRoutes(deps));
  });
