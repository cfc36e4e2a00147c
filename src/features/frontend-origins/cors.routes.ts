import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { SetCorsBody } from './cors.schemas.js';
import { type FrontendOrigins, setFrontendOrigins } from './cors.service.js';

/** The admin side of the frontend API's CORS (shown by `GET /api/admin/ui-config`). */
export const corsSettingRoutes = (deps: Deps, origins: FrontendOrigins) =>
  routes(async (app) => {
    app.post(
      '/api/admin/ui-config/cors',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Admin UI'],
          operationId: 'setCors',
          summary: 'Sets allowed CORS origins',
          description:
            'Stores the origins browsers may call the frontend API from (replacing FRONTEND_CORS_ORIGINS, the default), effective on every instance within about a second, and records `setting-created` or `setting-updated`.',
          body: SetCorsBody,
          response: { 204: NoBody('Stored.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const list = request.body.frontendApiOrigins;
        if (list !== undefined) origins.changed(await setFrontendOrigins(deps, list, actor(request)));
        return sendEmpty(reply, 204);
      },
    );
  });
