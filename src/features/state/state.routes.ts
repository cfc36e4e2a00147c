import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { acceptYamlBodies } from '../../platform/http/yaml-body.js';
import { StateDocument, StateImportQuery } from './state.schemas.js';
import { exportState, importState } from './state.service.js';

const tags = ['Import/Export'];

/**
 * Unleash 5.x's state import (deprecated there, removed in 6) and an export it accepts
 * (docs/api.md "State import and export"). Admins only; the import takes JSON or YAML up to
 * IMPORT_BODY_LIMIT.
 */
export const stateRoutes = (deps: Deps) =>
  routes(async (app) => {
    acceptYamlBodies(app);

    app.get(
      '/api/admin/state/export',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'exportState',
          summary: 'Export the whole configuration as a state document',
          description:
            'Every environment, active project, strategy type, tag type and tag, and every active flag with its strategies, on/off, variants and tags in each environment of its project: a version 4 document that `POST /api/admin/state/import` accepts. Segments are not exported.',
          response: { 200: StateDocument, ...errorResponses(401, 403) },
        },
      },
      async () => exportState(deps),
    );

    app.post(
      '/api/admin/state/import',
      {
        config: { permission: 'ADMIN' },
        bodyLimit: deps.config.IMPORT_BODY_LIMIT,
        schema: {
          tags,
          deprecated: true,
          operationId: 'import',
          summary: 'Import a state document',
          description:
            'Applies the document in one transaction, all or nothing; 202 with no body. Projects, environments and strategy types must exist; tag types are created when missing. With `keep` (default) flags that exist are left as they are; otherwise each listed flag becomes what the document says (metadata, tags, and in every environment of its project its strategies, on/off and variants). Any problem is a 400 listing each in details, changing nothing. `drop` is refused. JSON or YAML.',
          querystring: StateImportQuery,
          body: StateDocument,
          response: {
            202: Type.Null({ description: 'Imported; no body.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await importState(deps, request.body, request.query, actor(request));
        return sendEmpty(reply, 202);
      },
    );
  });
