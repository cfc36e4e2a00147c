import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import { TagSchema } from '../shapes/index.js';
import {
  BulkTagsBody,
  CreateTagTypeBody,
  FlagTagParams,
  FlagTagsParams,
  ProjectTagsParams,
  TagInput,
  TagParams,
  TagsResponse,
  TagTypeParams,
  TagTypeSchema,
  TagTypesResponse,
  TagWithVersion,
  TypeParams,
  UpdateFlagTagsBody,
  UpdateTagTypeBody,
  ValidateTagTypeResponse,
} from './tags.schemas.js';
import * as service from './tags.service.js';

const NoBody = Type.Null({ description: 'No body.' });

export const tagRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    const tags = ['Tags'];

    app.get(
      '/api/admin/tags',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getTags',
          summary: 'List all tags',
          description: 'Every tag, by type then value.',
          response: { 200: TagsResponse, ...errorResponses(401, 403) },
        },
      },
      async () => service.listTags(deps),
    );

    app.post(
      '/api/admin/tags',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags,
          operationId: 'createTag',
          summary: 'Create a tag',
          description:
            'Creates a tag of an existing type (the value is trimmed) and records `tag-created`. 409 when it exists.',
          body: TagInput,
          response: { 201: TagWithVersion, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createTag(deps, request.body, actor(request))),
    );

    app.get(
      '/api/admin/tags/:type',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getTagsByType',
          summary: 'List the tags of a type',
          description: 'The tags of one type, by value; 404 for an unknown type.',
          params: TypeParams,
          response: { 200: TagsResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.listTagsOfType(deps, request.params.type),
    );

    app.get(
      '/api/admin/tags/:type/:value',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getTag',
          summary: 'Get a tag',
          description: 'One tag.',
          params: TagParams,
          response: { 200: TagWithVersion, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.getTag(deps, request.params),
    );

    app.delete(
      '/api/admin/tags/:type/:value',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags,
          operationId: 'deleteTag',
          summary: 'Delete a tag',
          description: 'Deletes the tag, takes it off every flag and records `tag-deleted`.',
          params: TagParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteTag(deps, request.params, actor(request));
        return reply.send(null);
      },
    );

    app.get(
      '/api/admin/tag-types',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getTagTypes',
          summary: 'List tag types',
          description: 'Every tag type, by name.',
          response: { 200: TagTypesResponse, ...errorResponses(401, 403) },
        },
      },
      async (request) => service.listTagTypes(deps, reads.of(request)),
    );

    app.post(
      '/api/admin/tag-types',
      {
        config: { permission: 'CREATE_TAG_TYPE' },
        schema: {
          tags,
          operationId: 'createTagType',
          summary: 'Create a tag type',
          description: 'Creates a tag type and records `tag-type-created`. 409 when the name is taken.',
          body: CreateTagTypeBody,
          response: { 201: TagTypeSchema, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createTagType(deps, request.body, actor(request))),
    );

    app.post(
      '/api/admin/tag-types/validate',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'validateTagType',
          summary: 'Validate a tag type',
          description:
            'Checks a new tag type without creating it: 400 when invalid, 409 when the name is taken.',
          body: CreateTagTypeBody,
          response: { 200: ValidateTagTypeResponse, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request) => service.validateTagType(deps, request.body),
    );

    app.get(
      '/api/admin/tag-types/:name',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getTagType',
          summary: 'Get a tag type',
          description: 'One tag type.',
          params: TagTypeParams,
          response: { 200: TagTypeSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.getTagType(deps, request.params.name),
    );

    app.put(
      '/api/admin/tag-types/:name',
      {
        config: { permission: 'UPDATE_TAG_TYPE' },
        schema: {
          tags,
          operationId: 'updateTagType',
          summary: 'Update a tag type',
          description: 'Changes the properties sent (null clears) and records `tag-type-updated`.',
          params: TagTypeParams,
          body: UpdateTagTypeBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.updateTagType(deps, request.params.name, request.body, actor(request));
        return reply.send(null);
      },
    );

    app.delete(
      '/api/admin/tag-types/:name',
      {
        config: { permission: 'DELETE_TAG_TYPE' },
        schema: {
          tags,
          operationId: 'deleteTagType',
          summary: 'Delete a tag type',
          description:
            'Deletes the tag type with its tags (taking them off every flag) and records `tag-type-deleted`.',
          params: TagTypeParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteTagType(deps, request.params.name, actor(request));
        return reply.send(null);
      },
    );

    app.get(
      '/api/admin/features/:featureName/tags',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Features'],
          operationId: 'listTags',
          summary: 'List the tags of a flag',
          description: 'The tags on the flag, by type then value.',
          params: FlagTagsParams,
          response: { 200: TagsResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.listFlagTags(deps, reads.of(request), request.params.featureName),
    );

    app.post(
      '/api/admin/features/:featureName/tags',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'addTag',
          summary: 'Tag a flag',
          description:
            'Puts the tag on the flag, creating the tag if needed (`tag-created`), and records `feature-tagged`. 409 when the flag already has it.',
          params: FlagTagsParams,
          body: TagInput,
          response: { 201: TagSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await service.addFlagTag(deps, request.params.featureName, request.body, actor(request))),
    );

    app.put(
      '/api/admin/projects/:projectId/tags',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Tags'],
          operationId: 'addTagToFeatures',
          summary: 'Tag several flags',
          description:
            'Adds and removes tags on the listed flags of the project in one transaction (tags created as needed, `feature-tagged` / `feature-untagged` per change); a flag not in the project is a 404 and nothing changes.',
          params: ProjectTagsParams,
          body: BulkTagsBody,
          response: {
            200: Type.Null({ description: 'Done.' }),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request, reply) => {
        const { features, tags: change } = request.body;
        await service.updateTagsOfFlags(deps, request.params.projectId, features, change, actor(request));
        return reply.code(200).send(null);
      },
    );

    app.put(
      '/api/admin/features/:featureName/tags',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'updateTags',
          summary: 'Add and remove tags of a flag',
          description:
            'Adds `addedTags` then removes `removedTags` (each change recorded as `feature-tagged` / `feature-untagged`; tags already on or off are skipped) and answers the tags now on the flag.',
          params: FlagTagsParams,
          body: UpdateFlagTagsBody,
          response: { 200: TagsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request) =>
        service.updateFlagTags(deps, request.params.featureName, request.body, actor(request)),
    );

    app.delete(
      '/api/admin/features/:featureName/tags/:type/:value',
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Features'],
          operationId: 'removeTag',
          summary: 'Untag a flag',
          description:
            'Takes the tag off the flag and records `feature-untagged`; 404 when the flag does not have it.',
          params: FlagTagParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { featureName, type, value } = request.params;
        await service.removeFlagTag(deps, featureName, { type, value }, actor(request));
        return reply.send(null);
      },
    );
  });
