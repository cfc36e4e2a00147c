import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { ProjectParams } from '../shapes/index.js';
import { ArchivedFlagsSchema, ArchiveProjectParams, ProjectFlagsSchema } from './listing.schemas.js';
import { listArchivedFlags, listProjectFlags } from './listing.service.js';

/** The flags of a project and the archive lists. */
export const listingRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/features',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'getFeatures',
          summary: 'Get all features in a project',
          description: "The project's active (not archived) flags with their state per environment.",
          deprecated: true,
          params: ProjectParams,
          response: { 200: ProjectFlagsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) =>
        listProjectFlags(deps, reads.of(request), request.params.projectId, request.principal),
    );

    app.get(
      '/api/admin/archive/features/:projectId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Archive'],
          operationId: 'getArchivedFeaturesByProjectId',
          summary: 'Get archived features in project',
          description:
            'The archived flags of the project (none for an unknown project). Deprecated: use the flag search with `archived=IS:true`.',
          deprecated: true,
          params: ArchiveProjectParams,
          response: { 200: ArchivedFlagsSchema, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        return listArchivedFlags(deps, reads.of(request), request.params.projectId);
      },
    );

    app.get(
      '/api/admin/archive/features',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Archive'],
          operationId: 'getArchivedFeatures',
          summary: 'Get archived features',
          description: 'Every archived flag. Deprecated: use the flag search with `archived=IS:true`.',
          deprecated: true,
          response: { 200: ArchivedFlagsSchema, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        return listArchivedFlags(deps, reads.of(request));
      },
    );
  });
