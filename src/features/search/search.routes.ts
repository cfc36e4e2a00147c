import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { SearchQuerySchema, SearchResultSchema } from './search.schemas.js';
import { searchFeatures } from './search.service.js';

/** Flag search: the flag lists of people and scripts (no rate limit: it is cheap, and kept). */
export const searchRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/search/features',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Search'],
          operationId: 'searchFeatures',
          summary: 'Search and filter features',
          description:
            'One page of the flags matching every filter, in sort order, and the number of all matches. Filters use Unleash\'s grammar (`OPERATOR:value,…`); a malformed parameter is a 400 naming it, unknown projects, tags or segments match nothing. See docs/api.md "Search".',
          querystring: SearchQuerySchema,
          response: { 200: SearchResultSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => searchFeatures(deps, reads.of(request), request.query, request.principal),
    );
  });
