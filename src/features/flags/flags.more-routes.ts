import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  archiveFlag,
  deleteFlagForGood,
  listArchivedFlags,
  listProjectFlags,
  markStale,
  reviveFlag,
} from './flags.archive.js';
import { cloneFlag } from './flags.clone.js';
import { setFavorite } from './flags.favorites.js';
import { completeFlag, getLifecycle, uncompleteFlag } from './flags.lifecycle.js';
import {
  ArchivedFlagParams,
  ArchivedFlagsSchema,
  ArchiveProjectParams,
  CloneBody,
  CompleteBody,
  LifecycleSchema,
  ProjectFlagsSchema,
  StaleBody,
} from './flags.more.schemas.js';
import { FlagParams, FlagSchema, ProjectParams } from './flags.schemas.js';

const Empty = (description: string) => Type.Null({ description });
/** Answers with the status and no body, as Unleash does for these operations. */
const empty = (reply: FastifyReply, code: number) => reply.code(code).send();
const FLAG = '/api/admin/projects/:projectId/features/:featureName';

/** Listing, archive, stale, favorites, clone and lifecycle of flags. */
export const flagMoreRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/projects/:projectId/features',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'getFeatures',
          summary: 'Get all features in a project',
          description: "The project's active (not archived) flags with their state per environment.",
          deprecated: true,
          params: ProjectParams,
          response: { 200: ProjectFlagsSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => listProjectFlags(deps, request.params.projectId),
    );

    app.delete(
      FLAG,
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'archiveFeature',
          summary: 'Archive a feature flag',
          description:
            'Archives an active flag of the project: sets archivedAt, enters the `archived` lifecycle stage and records `feature-archived`.',
          params: FlagParams,
          response: { 202: Empty('Archived.'), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await archiveFlag(deps, request.params.projectId, request.params.featureName, actor(request));
        return empty(reply, 202);
      },
    );

    app.post(
      '/api/admin/archive/revive/:featureName',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Archive'],
          operationId: 'reviveFeature',
          summary: 'Revives a feature',
          description:
            'Brings an archived flag back to its project in the lifecycle stage it had before; records `feature-revived`. A flag that is not archived is a 400.',
          params: ArchivedFlagParams,
          response: { 200: Empty('Revived.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await reviveFlag(deps, request.params.featureName, actor(request));
        return empty(reply, 200);
      },
    );

    app.delete(
      '/api/admin/archive/:featureName',
      {
        config: { permission: 'DELETE_FEATURE' },
        schema: {
          tags: ['Archive'],
          operationId: 'deleteFeature',
          summary: 'Deletes an archived feature',
          description:
            'Deletes an archived flag for good (its events stay) and records `feature-deleted`. A flag that is not archived is a 400.',
          params: ArchivedFlagParams,
          response: { 200: Empty('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await deleteFlagForGood(deps, request.params.featureName, actor(request));
        return empty(reply, 200);
      },
    );

    app.get(
      '/api/admin/archive/features/:projectId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Archive'],
          operationId: 'getArchivedFeaturesByProjectId',
          summary: 'Get archived features in project',
          description:
            'The archived flags of the project (none for an unknown project). Deprecated: use the flag search with `archived=IS:true`.',
          deprecated: true,
          params: ArchiveProjectParams,
          response: { 200: ArchivedFlagsSchema, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        return listArchivedFlags(deps, request.params.projectId);
      },
    );

    app.get(
      '/api/admin/archive/features',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Archive'],
          operationId: 'getArchivedFeatures',
          summary: 'Get archived features',
          description: 'Every archived flag. Deprecated: use the flag search with `archived=IS:true`.',
          deprecated: true,
          response: { 200: ArchivedFlagsSchema, ...errorResponses(401, 403) },
        },
      },
      async (_request, reply) => {
        reply.header('Deprecation', 'true');
        return listArchivedFlags(deps);
      },
    );

    app.post(
      '/api/admin/projects/:projectId/stale',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'staleFeatures',
          summary: 'Mark features as stale / not stale',
          description:
            'Marks the listed active flags of the project stale or not stale; names of other flags are ignored. Records `feature-stale-on` or `feature-stale-off` per flag that changed.',
          params: ProjectParams,
          body: StaleBody,
          response: { 202: Empty('Marked.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await markStale(deps, request.params.projectId, request.body, actor(request));
        return empty(reply, 202);
      },
    );

    const favoriteOptions = (operationId: string, summary: string, description: string) =>
      ({
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId,
          summary,
          description: `${description} API tokens have no favorites: for them this checks the flag and does nothing.`,
          params: FlagParams,
          response: { 200: Empty('Done.'), ...errorResponses(401, 403, 404) },
        },
      }) as const;
    app.post(
      `${FLAG}/favorites`,
      favoriteOptions(
        'addFavoriteFeature',
        'Add feature to favorites',
        "Adds the flag to the calling user's favorites and records `feature-favorited` when that changed anything.",
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, request.params.featureName, true, actor(request));
        return empty(reply, 200);
      },
    );
    app.delete(
      `${FLAG}/favorites`,
      favoriteOptions(
        'removeFavoriteFeature',
        'Remove feature from favorites',
        "Removes the flag from the calling user's favorites and records `feature-unfavorited` when that changed anything.",
      ),
      async (request, reply) => {
        await setFavorite(deps, request.params.projectId, request.params.featureName, false, actor(request));
        return empty(reply, 200);
      },
    );

    app.post(
      `${FLAG}/clone`,
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

    app.get(
      `${FLAG}/lifecycle`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Lifecycle'],
          operationId: 'getFeatureLifecycle',
          summary: 'Get feature lifecycle',
          description:
            'The lifecycle stages the flag has entered, oldest first; the last is the current one.',
          params: FlagParams,
          response: { 200: LifecycleSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => getLifecycle(deps, request.params.projectId, request.params.featureName),
    );

    app.post(
      `${FLAG}/lifecycle/complete`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Lifecycle'],
          operationId: 'complete',
          summary: 'Set flag lifecycle to completed',
          description:
            'Moves an active flag to the `completed` stage with the status given and records `feature-completed`.',
          params: FlagParams,
          body: CompleteBody,
          response: { 200: Empty('Completed.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const { projectId, featureName } = request.params;
        await completeFlag(deps, projectId, featureName, request.body, actor(request));
        return empty(reply, 200);
      },
    );

    app.post(
      `${FLAG}/lifecycle/uncomplete`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Lifecycle'],
          operationId: 'uncomplete',
          summary: 'Set flag lifecycle to uncompleted',
          description:
            'Takes a completed flag back to the stage it had before completion and records `feature-uncompleted`. A flag that is not completed is a 400.',
          params: FlagParams,
          response: { 200: Empty('Uncompleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await uncompleteFlag(deps, request.params.projectId, request.params.featureName, actor(request));
        return empty(reply, 200);
      },
    );
  });
