import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { IfMatchHeaders, withEtag } from '../../platform/http/etag.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import {
  changeFlagVariants,
  patchEnvironmentVariants,
  pushVariants,
  replaceEnvironmentVariants,
} from './variants.requests.js';
import {
  FeatureVariantsSchema,
  FlagEnvironmentParams,
  FlagParams,
  PatchBody,
  PushVariantsBody,
  VariantsBody,
} from './variants.schemas.js';
import { getEnvironmentVariants, getFlagVariants } from './variants.service.js';

const ENV_PATH = '/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants';
const FLAG_PATH = '/api/admin/projects/:projectId/features/:featureName/variants';
const IF_MATCH =
  " With `If-Match` (the ETag of the environment's variants), variants that changed since they were read are refused with 412 and nothing changes; the answer carries the new ETag.";
const WEIGHTS =
  'Weights are normalised: fixed weights are kept, variable ones share what is left of 1000 (the first variable variants in the order sent get the remainder), and the list is stored sorted by name.';

export const variantRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    const tags = ['Features'];
    const target = (p: { projectId: string; featureName: string }) => ({
      projectId: p.projectId,
      featureName: p.featureName,
    });

    app.get(
      ENV_PATH,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getEnvironmentFeatureVariants',
          summary: 'Get the variants of a flag in an environment',
          description:
            'The variants of the flag in this environment, sorted by name. The `ETag` header identifies them; send it as `If-Match` with a PUT or PATCH of these variants to refuse the write (412) if they changed meanwhile.',
          params: FlagEnvironmentParams,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) =>
        withEtag(
          reply,
          await getEnvironmentVariants(deps, target(request.params), request.params.environment),
        ),
    );

    app.put(
      ENV_PATH,
      {
        config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
        schema: {
          tags,
          operationId: 'overwriteEnvironmentFeatureVariants',
          summary: 'Replace the variants of a flag in an environment',
          description: `Replaces the whole list and records \`feature-environment-variants-updated\`. ${WEIGHTS}${IF_MATCH}`,
          params: FlagEnvironmentParams,
          headers: IfMatchHeaders,
          body: VariantsBody,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) =>
        withEtag(
          reply,
          await replaceEnvironmentVariants(
            deps,
            changes,
            request.params,
            request.body,
            actor(request),
            request.headers['if-match'],
          ),
        ),
    );

    app.patch(
      ENV_PATH,
      {
        config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
        schema: {
          tags,
          operationId: 'patchEnvironmentsFeatureVariants',
          summary: 'Patch the variants of a flag in an environment',
          description: `Applies an RFC 6902 JSON Patch to the variants array (all or nothing), validates the result as a PUT body and records \`feature-environment-variants-updated\`. ${WEIGHTS}${IF_MATCH}`,
          params: FlagEnvironmentParams,
          headers: IfMatchHeaders,
          body: PatchBody,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404, 412, 413, 415) },
        },
      },
      async (request, reply) =>
        withEtag(
          reply,
          await patchEnvironmentVariants(
            deps,
            changes,
            request.params,
            request.body,
            actor(request),
            request.headers['if-match'],
          ),
        ),
    );

    app.put(
      '/api/admin/projects/:projectId/features/:featureName/variants-batch',
      {
        config: { permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS' },
        schema: {
          tags,
          operationId: 'overwriteFeatureVariantsOnEnvironments',
          summary: 'Replace the variants of a flag in several environments',
          description: `Writes the same variants to each listed environment, recording \`feature-environment-variants-updated\` for each. ${WEIGHTS}`,
          params: FlagParams,
          body: PushVariantsBody,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) => pushVariants(deps, changes, target(request.params), request.body, actor(request)),
    );

    app.get(
      FLAG_PATH,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getFeatureVariants',
          summary: 'Get the variants of a flag (deprecated)',
          description:
            'Deprecated: use the environment variants. The variants of the first environment of the flag.',
          deprecated: true,
          params: FlagParams,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getFlagVariants(deps, target(request.params)),
    );

    app.put(
      FLAG_PATH,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags,
          operationId: 'overwriteFeatureVariants',
          summary: 'Replace the variants of a flag in every environment (deprecated)',
          description: `Deprecated: use the environment variants. Writes the list to every environment of the flag and records \`feature-variants-updated\`. ${WEIGHTS}`,
          deprecated: true,
          params: FlagParams,
          body: VariantsBody,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) =>
        changeFlagVariants(deps, changes, target(request.params), { replace: request.body }, actor(request)),
    );

    app.patch(
      FLAG_PATH,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags,
          operationId: 'patchFeatureVariants',
          summary: 'Patch the variants of a flag in every environment (deprecated)',
          description: `Deprecated: use the environment variants. Applies a JSON Patch to the variants of the first environment, writes the result to every environment and records \`feature-variants-updated\`. ${WEIGHTS}`,
          deprecated: true,
          params: FlagParams,
          body: PatchBody,
          response: { 200: FeatureVariantsSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) =>
        changeFlagVariants(deps, changes, target(request.params), { patch: request.body }, actor(request)),
    );
  });
