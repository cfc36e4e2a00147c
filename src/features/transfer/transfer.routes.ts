import type { FastifyError, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { jsonInSlices } from '../../platform/http/json-in-slices.js';
import { routes, sendEmpty, sendSerialized } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { acceptYamlBodies } from '../../platform/http/yaml-body.js';
import { exportFlags } from './export.service.js';
import { importDocument, validateImport } from './import.service.js';
import {
  ExportQueryBody,
  ExportResultSchema,
  ImportBody,
  ImportValidationSchema,
} from './transfer.schemas.js';

const tags = ['Import/Export'];
/** An export of thousands of flags is serialised in slices, letting other requests run meanwhile. */
const exportJson = jsonInSlices(ExportResultSchema);
const BATCH = '/api/admin/features-batch';

/** The 413 of this slice's routes: names the limit in force and the variable that raises it. */
function tooLarge(deps: Deps, request: FastifyRequest): AppError {
  const imports = request.routeOptions.bodyLimit === deps.config.IMPORT_BODY_LIMIT;
  const limit = imports ? deps.config.IMPORT_BODY_LIMIT : deps.config.BODY_LIMIT;
  const variable = imports ? 'IMPORT_BODY_LIMIT' : 'BODY_LIMIT';
  const message = `The request body is larger than the limit of ${limit} bytes (${(limit / 1_048_576).toFixed(1)} MiB) for this endpoint; the environment variable ${variable} raises it.`;
  return new AppError('PayloadTooLargeError', message, [{ message }]);
}

/**
 * Export, validation and import of flag configuration (Unleash's features-batch API, docs/api.md
 * "Export and import"). Validate and import take JSON or YAML up to IMPORT_BODY_LIMIT.
 */
export const transferRoutes = (deps: Deps) =>
  routes(async (app) => {
    acceptYamlBodies(app);
    // Errors this handler does not rewrite go on to the app's handler (Fastify's handler chain).
    app.setErrorHandler((error: FastifyError, request) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw tooLarge(deps, request);
      throw error;
    });
    const bodyLimit = deps.config.IMPORT_BODY_LIMIT;

    app.post(
      `${BATCH}/export`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'exportFeatures',
          summary: 'Export feature flags from an environment',
          description:
            'The selected flags with their configuration in one environment: strategies (constraints, variants, segment ids), on/off and variants, tags, the context fields, segments and tag types they use, and their parents. Selection: `tag`, else a non-empty `features` list, else `project`, else (an empty `features` list alone) every active flag. `downloadFile: true` adds `Content-Disposition: attachment; filename="export-<YYYY-MM-DD>.json"`. Records `features-exported`. 404 for an unknown environment or project.',
          body: ExportQueryBody,
          response: { 200: ExportResultSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const result = await exportFlags(deps, request.body, actor(request));
        if (request.body.downloadFile) {
          const date = deps.now().toISOString().slice(0, 10);
          reply.header('Content-Disposition', `attachment; filename="export-${date}.json"`);
        }
        return sendSerialized(reply, await exportJson(result));
      },
    );

    app.post(
      `${BATCH}/validate`,
      {
        config: { permission: 'NONE' },
        bodyLimit,
        schema: {
          tags,
          operationId: 'validateImport',
          summary: 'Validate feature import data',
          description:
            'Checks whether the document can be imported into the project and environment, changing nothing: `errors` (any one refuses the import), `warnings` and the `permissions` the caller lacks, each `{message, affectedItems}`. The body may be JSON or YAML (`Content-Type: application/yaml`), up to IMPORT_BODY_LIMIT bytes. 404 for an unknown project or an environment the project does not have.',
          body: ImportBody,
          response: { 200: ImportValidationSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => validateImport(deps, request.body, actor(request)),
    );

    app.post(
      `${BATCH}/import`,
      {
        config: { permission: 'NONE' },
        bodyLimit,
        schema: {
          tags,
          operationId: 'importToggles',
          summary: 'Import feature flags',
          description:
            'Applies the document to the project and environment in one transaction, all or nothing: flags are created or updated, their tags, strategies, on/off, variants and parents become the document’s; missing tag types and context fields are created. Refused with 400 (details: the errors validation lists) or 403 (missing permissions), changing nothing. One event per change, then `features-imported`; importing the same document again changes nothing and records nothing. Admin API tokens may import (Unleash refuses them). JSON or YAML, up to IMPORT_BODY_LIMIT bytes.',
          body: ImportBody,
          response: {
            200: Type.Null({ description: 'Imported; no body.' }),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await importDocument(deps, request.body, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
