import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import { ProjectParams } from '../shapes/index.js';
import { ArchiveValidationSchema, FlagNamesBody } from './archive-bulk.schemas.js';
import { archiveFlags, validateArchive } from './archive-bulk.service.js';

/** Archiving many flags of a project at once, and what it would do. */
export const archiveBulkRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    app.post(
      '/api/admin/projects/:projectId/archive',
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'archiveFeatures',
          summary: 'Archives a list of features',
          description:
            'Archives the listed flags of the project in one transaction, each with `feature-archived`; unknown and already archived flags are ignored. A flag of another project, or a parent whose children are not all listed, refuses the whole request (403); the archived flags lose their own dependencies (`feature-dependency-removed`).',
          params: ProjectParams,
          body: FlagNamesBody,
          response: { 202: NoBody('Archived.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        await archiveFlags(deps, changes, request.params.projectId, request.body.features, actor(request));
        return sendEmpty(reply, 202);
      },
    );

    app.post(
      '/api/admin/projects/:projectId/archive/validate',
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'validateArchiveFeatures',
          summary: 'Validates archive features',
          description:
            'Which of the listed flags of the project are parents of flags not listed (archiving them would be refused), and whether archiving them would remove dependencies. Changes nothing.',
          params: ProjectParams,
          body: FlagNamesBody,
          response: { 200: ArchiveValidationSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request) => validateArchive(deps, request.params.projectId, request.body.features),
    );
  });
