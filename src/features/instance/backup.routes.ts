import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { backupEmbedded } from './backup.service.js';

/** `npm run backup` asks the running service for a copy of its embedded database (scripts/backup.mjs). */
export const backupRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/instance-admin/backup',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Instance Admin'],
          operationId: 'getEmbeddedDatabaseBackup',
          summary: 'Back up the embedded database',
          description:
            'A consistent copy of the embedded database (PGlite) made while the service runs: its data directory as a gzipped tarball (`application/gzip`), as of the last committed change; writes wait while it is made. `npm run restore` turns it into a data directory again. 404 on PostgreSQL, whose backups are made with pg_dump.',
          response: {
            200: Type.Unsafe<Buffer>({
              type: 'string',
              format: 'binary',
              description: 'The data directory as a gzipped tarball.',
            }),
            ...errorResponses(401, 403, 404),
          },
        },
      },
      async (_request, reply) => {
        const started = performance.now();
        const body = await backupEmbedded(deps);
        const stamp = deps.now().toISOString().replaceAll(':', '-').slice(0, 19);
        reply.log.info({ bytes: body.length, ms: Math.round(performance.now() - started) }, 'backup made');
        return noStore(reply)
          .type('application/gzip')
          .header('Content-Disposition', `attachment; filename="flagship-backup-${stamp}.tar.gz"`)
          .send(body);
      },
    );
  });
