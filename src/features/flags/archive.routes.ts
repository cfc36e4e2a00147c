import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import { FlagParams, ProjectParams } from '../shapes/index.js';
import { ArchivedFlagParams, ArchivedFlagsBody } from './archive.schemas.js';
import { changeArchivedFlags, deleteFlagForGood, reviveFlag } from './archive.service.js';
import { FLAG_PATH } from './flags.schemas.js';

/** Archive, revive and delete flags for good. */
export const archiveRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    for (const action of ['revive', 'delete'] as const) {
      app.post(
        `/api/admin/projects/:projectId/${action}`,
        {
          config: { permission: action === 'revive' ? 'UPDATE_FEATURE' : 'DELETE_FEATURE' },
          schema: {
            tags: ['Archive'],
            operationId: action === 'revive' ? 'reviveFeatures' : 'deleteFeatures',
            summary: action === 'revive' ? 'Revive archived flags' : 'Delete archived flags',
            description:
              action === 'revive'
                ? 'Revives the listed archived flags of the project in one transaction (all or nothing), each with `feature-revived`.'
                : 'Deletes the listed archived flags of the project for good in one transaction (all or nothing), each with `feature-deleted`.',
            params: ProjectParams,
            body: ArchivedFlagsBody,
            response: { 200: NoBody('Done.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
          },
        },
        async (request, reply) => {
          await changeArchivedFlags(
            deps,
            request.params.projectId,
            request.body.features,
            action,
            actor(request),
          );
          return sendEmpty(reply, 200);
        },
      );
    }

    app.delete(
      FLAG_PATH,
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'archiveFeature',
          summary: 'Archive a feature flag',
          description:
            'Archives an active flag of the project: sets archivedAt, enters the `archived` lifecycle stage and records `feature-archived`.',
          params: FlagParams,
          response: { 202: NoBody('Archived.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId: project, featureName: feature } = request.params;
        await changes.apply(deps, [{ action: 'archiveFeature', project, feature }], actor(request));
        return sendEmpty(reply, 202);
      },
    );

    app.post(
      '/api/admin/archive/revive/:featureName',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Archive'],
          operationId: 'reviveFeature',
          summary: 'Revives a feature',
          description:
            'Brings an archived flag back to its project in the lifecycle stage it had before; records `feature-revived`. A flag that is not archived is a 400.',
          params: ArchivedFlagParams,
          response: { 200: NoBody('Revived.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await reviveFlag(deps, request.params.featureName, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.delete(
      '/api/admin/archive/:featureName',
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Archive'],
          operationId: 'deleteFeature',
          summary: 'Deletes an archived feature',
          description:
            'Deletes an archived flag for good (its events stay) and records `feature-deleted`. A flag that is not archived is a 400.',
          params: ArchivedFlagParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await deleteFlagForGood(deps, request.params.featureName, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
