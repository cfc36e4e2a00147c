import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { FlagParams } from '../shapes/index.js';
import { CloneBody } from './clone.schemas.js';
import { cloneFlag } from './clone.service.js';
import { FLAG_PATH, FlagSchema } from './flags.schemas.js';

/** Clone a flag. */
export const cloneRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.post(
      `${FLAG_PATH}/clone`,
      {
        config: { permission: 'CREATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'cloneFeature',
          summary: 'Clone a feature flag',
          description:
            'Creates a copy of the flag under a new name: type, description, impression data, tags, variants, strategies (with new ids; groupId replaced unless `replaceGroupId` is false) and parent dependencies. Environments start disabled.',
          params: FlagParams,
          body: CloneBody,
          response: { 200: FlagSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) =>
        cloneFlag(deps, request.params.projectId, request.params.featureName, request.body, actor(request)),
    );
  });
