import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { jsonInSlices } from '../../platform/http/json-in-slices.js';
import { routes, sendEmpty, sendSerialized } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { acceptYamlBodies } from '../../platform/http/yaml-body.js';
import { StateDocument, StateImportQuery } from './state.schemas.js';
import { exportState, importState } from './state.service.js';

const tags = ['Import/Export'];
/** The whole configuration is serialised in slices, letting other requests run meanwhile. */
const stateJson = jsonInSlices(StateDocument);

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
            'Every environment, active project, strategy type, tag type, tag and segment, and every active flag with its strategies (and their segments, in `featureStrategySegments`), on/off, variants and tags in each environment of its project: a version 4 document that `POST /api/admin/state/import` accepts.',
          response: { 200: StateDocument, ...errorResponses(401, 403) },
        },
      },
      async (_request, reply) => sendSerialized(reply, await stateJson(await exportState(deps))),
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
            'Applies the document in one transaction, all or nothing; 202 with no body. Environments, projects, custom strategy types, tag types, tags and segments (matched by name) are created when missing (`*-import` events). With `keep` (default) flags and definitions that exist are left as they are; otherwise each listed one becomes what the document says (a flag: metadata, tags, and in every environment of its project its strategies with their segments, on/off and variants). With `drop`, what exists of each kind the document lists is deleted first (one `drop-*` event per kind; projects other than `default`, environments the document does not list except protected ones, custom strategy types and segments still in use stay). Any problem is a 400 listing each in details, changing nothing. JSON or YAML.',
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
