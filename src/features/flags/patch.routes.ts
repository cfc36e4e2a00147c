import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { IfMatchHeaders } from '../../platform/http/etag.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { FlagParams } from '../shapes/index.js';
import { FLAG_PATH, FlagSchema } from './flags.schemas.js';
import { flagEtag } from './flags.service.js';
import { FlagPatchBody } from './patch.schemas.js';
import { patchFlag } from './patch.service.js';

export const patchRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.patch(
      FLAG_PATH,
      {
        config: { permission: 'UPDATE_FEATURE', maintenance: 'handler' },
        schema: {
          tags: ['Features'],
          operationId: 'patchFeature',
          summary: 'Modify a feature flag',
          description:
            "Applies a JSON Patch to the flag (description, type, stale, impressionData, archived) with the events of an update: `feature-metadata-updated`, `feature-stale-on/off`, `feature-archived`/`feature-revived`. Variants are patched through their own operation (403). With `If-Match` (the flag's ETag), a flag that changed since it was read is refused with 412 and nothing changes; the answer carries the new ETag.",
          params: FlagParams,
          headers: IfMatchHeaders,
          body: FlagPatchBody,
          response: { 200: FlagSchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) => {
        const flag = await patchFlag(
          deps,
          request.params.projectId,
          request.params.featureName,
          request.body,
          actor(request),
          request.headers['if-match'],
        );
        reply.header('etag', flagEtag(flag));
        return flag;
      },
    );
  });
