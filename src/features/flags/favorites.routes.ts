import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { FlagParams } from '../shapes/index.js';
import { setFavorite } from './favorites.service.js';
import { FLAG_PATH } from './flags.schemas.js';

/** The calling user's favorite flags. */
export const favoriteRoutes = (deps: Deps) =>
  routes(async (app) => {
    const favoriteOptions = (operationId: string, summary: string, description: string) =>
      ({
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId,
          summary,
          description: `${description} API tokens have no favorites: for them this checks the flag and does nothing.`,
          params: FlagParams,
          response: { 200: NoBody('Done.'), ...errorResponses(401, 403, 404) },
        },
      }) as const;

    app.post(
      `${FLAG_PATH}/favorites`,
      favoriteOptions(
        'addFavoriteFeature',
        'Add feature to favorites',
        "Adds the flag to the calling user's favorites and records `feature-favorited` when that changed anything.",
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, request.params.featureName, true, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.delete(
      `${FLAG_PATH}/favorites`,
      favoriteOptions(
        'removeFavoriteFeature',
        'Remove feature from favorites',
        "Removes the flag from the calling user's favorites and records `feature-unfavorited` when that changed anything.",
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, request.params.featureName, false, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
