import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { FlagParams } from '../shapes/index.js';
import { FLAG_PATH } from './flags.schemas.js';
import { LinkBody, LinkParams } from './links.schemas.js';
import { addLink, changeLink, removeLink } from './links.service.js';

/** Links of a flag (Unleash's flag links); the flag shows them in `links`. */
export const linkRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.post(
      `${FLAG_PATH}/link`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'createFeatureLink',
          summary: 'Create a feature link',
          description:
            'Adds a link to the flag (at most 10 per flag) and records `feature-link-added`. A URL without a scheme gets `https://`.',
          params: FlagParams,
          body: LinkBody,
          response: { 204: NoBody('Added.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await addLink(deps, request.params, request.body, actor(request));
        return sendEmpty(reply, 204);
      },
    );

    app.put(
      `${FLAG_PATH}/link/:linkId`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'updateFeatureLink',
          summary: 'Update a feature link',
          description: 'Replaces the URL and title of a link of the flag and records `feature-link-updated`.',
          params: LinkParams,
          body: LinkBody,
          response: { 204: NoBody('Updated.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await changeLink(deps, request.params, request.params.linkId, request.body, actor(request));
        return sendEmpty(reply, 204);
      },
    );

    app.delete(
      `${FLAG_PATH}/link/:linkId`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'deleteFeatureLink',
          summary: 'Delete a feature link',
          description: 'Removes a link of the flag and records `feature-link-removed`.',
          params: LinkParams,
          response: { 204: NoBody('Deleted.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removeLink(deps, request.params, request.params.linkId, actor(request));
        return sendEmpty(reply, 204);
      },
    );
  });
