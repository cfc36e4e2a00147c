import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { IfMatchHeaders } from '../../platform/http/etag.js';
import { routes, sendSerialized } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import type { Applier } from '../changes/index.js';
import { FlagParams, ProjectParams } from '../shapes/index.js';
import { archiveRoutes } from './archive.routes.js';
import { archiveBulkRoutes } from './archive-bulk.routes.js';
import { checkRoutes } from './checks.routes.js';
import { cloneRoutes } from './clone.routes.js';
import { favoriteRoutes } from './favorites.routes.js';
import { CreateFlagBody, type Flag, FlagSchema, UpdateFlagBody } from './flags.schemas.js';
import { createFlag, flagEtag, getFlag, updateFlagMetadata } from './flags.service.js';
import { lifecycleRoutes } from './lifecycle.routes.js';
import { linkRoutes } from './links.routes.js';
import { listingRoutes } from './listing.routes.js';
import { patchRoutes } from './patch.routes.js';
import { staleRoutes } from './stale.routes.js';

/**
 * Every route of the flags slice: create, read and update a flag here, then each use case from its
 * own file (listing, archive, stale, favorites, clone, lifecycle).
 */
export const flagRoutes = (deps: Deps, reads: ReadCache, changes: Applier) =>
  routes(async (app) => {
    /**
     * What is sent for a flag object several answers share (the read cache's, a batch of PUTs'):
     * its ETag and its JSON bytes, made once per object. Such objects are never changed; a
     * caller's favorite mark makes a copy, made per request.
     */
    const answers = new WeakMap<Flag, { etag: string; body: Buffer }>();
    const sendFlag = (reply: FastifyReply, flag: Flag) => {
      let sent = answers.get(flag);
      if (!sent) {
        sent = { etag: flagEtag(flag), body: Buffer.from(String(reply.serialize(flag))) };
        answers.set(flag, sent);
      }
      reply.header('etag', sent.etag);
      return sendSerialized(reply, sent.body);
    };
    app.post(
      '/api/admin/projects/:projectId/features',
      {
        config: { permission: 'CREATE_FEATURE', maintenance: 'handler' },
        schema: {
          tags: ['Features'],
          operationId: 'createFeature',
          summary: 'Add a new feature flag',
          description:
            'Creates a flag in the project, disabled in every environment of the project, and records `feature-created`.',
          params: ProjectParams,
          body: CreateFlagBody,
          response: { 200: FlagSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) => createFlag(deps, request.params.projectId, request.body, actor(request)),
    );

    app.get(
      '/api/admin/projects/:projectId/features/:featureName',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'getFeature',
          summary: 'Get a feature flag',
          description:
            "The flag with its configuration in every environment of its project. The `ETag` header identifies what is shown (all but the caller's own `favorite` mark); send it as `If-Match` with a PUT or PATCH of the flag to refuse the write (412) if the flag changed meanwhile.",
          params: FlagParams,
          response: { 200: FlagSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, featureName } = request.params;
        const flag = await getFlag(deps, reads.of(request), projectId, featureName, request.principal);
        // The read cache gives every caller the same object until the flag changes.
        return sendFlag(reply, flag);
      },
    );

    app.put(
      '/api/admin/projects/:projectId/features/:featureName',
      {
        config: { permission: 'UPDATE_FEATURE', maintenance: 'handler' },
        schema: {
          tags: ['Features'],
          operationId: 'updateFeature',
          summary: 'Update a feature flag',
          description:
            "Changes only the properties sent. `archived: true` archives the flag (`feature-archived`); `archived: false` revives it (`feature-revived`). With `If-Match` (the flag's ETag), a flag that changed since it was read is refused with 412 and nothing changes; the answer carries the new ETag.",
          params: FlagParams,
          headers: IfMatchHeaders,
          body: UpdateFlagBody,
          response: { 200: FlagSchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) => {
        const flag = await updateFlagMetadata(
          deps,
          request.params.projectId,
          request.params.featureName,
          request.body,
          actor(request),
          request.headers['if-match'],
        );
        // The PUTs of one flag applied together share their answer (flags.service.ts): made once.
        return sendFlag(reply, flag);
      },
    );

    await app.register(listingRoutes(deps, reads));
    await app.register(archiveRoutes(deps, changes));
    await app.register(staleRoutes(deps));
    await app.register(favoriteRoutes(deps));
    await app.register(cloneRoutes(deps));
    await app.register(lifecycleRoutes(deps));
    await app.register(checkRoutes(deps, reads));
    await app.register(linkRoutes(deps));
    await app.register(patchRoutes(deps));
    await app.register(archiveBulkRoutes(deps, changes));
  });
