import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { Applier } from '../changes/index.js';
import { AdminSegmentSchema, UpsertSegmentBody } from '../shapes/index.js';
import {
  SegmentIdParams,
  SegmentListSchema,
  SegmentNameBody,
  SegmentStrategiesSchema,
  StrategyIdParams,
} from './segments.schemas.js';
import {
  createSegment,
  getSegment,
  getSegmentStrategies,
  getSegments,
  getStrategySegments,
  validateSegmentName,
} from './segments.service.js';
import { strategySegmentRoutes } from './strategy-segments.routes.js';

const tags = ['Segments'];
const NoContent = Type.Null({ description: 'No body.' });

export const segmentRoutes = (deps: Deps, changes: Applier) =>
  routes(async (app) => {
    app.post(
      '/api/admin/segments/validate',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'validateSegment',
          summary: 'Validate a segment name',
          description:
            '204 when a segment could be created with the name; 409 `NameExistsError` when one has it.',
          body: SegmentNameBody,
          response: { 204: NoContent, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        await validateSegmentName(deps, request.body.name);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/api/admin/segments/strategies/:strategyId',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getSegmentsByStrategyId',
          summary: 'Get the segments of a strategy',
          description: 'The segments the strategy uses (none for an unknown strategy, as Unleash answers).',
          params: StrategyIdParams,
          response: { 200: SegmentListSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => getStrategySegments(deps, request.params.strategyId),
    );

    app.get(
      '/api/admin/segments',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getSegments',
          summary: 'Get all segments',
          description: 'Every segment, by id, with how many flags and projects use it.',
          response: { 200: SegmentListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => getSegments(deps),
    );

    app.post(
      '/api/admin/segments',
      {
        config: { permission: 'CREATE_SEGMENT' },
        schema: {
          tags,
          operationId: 'createSegment',
          summary: 'Create a new segment',
          description:
            'Creates a segment (201, `Location: segments/<id>`); constraints are validated as on strategies. Records `segment-created`.',
          body: UpsertSegmentBody,
          response: { 201: AdminSegmentSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const segment = await createSegment(deps, request.body, actor(request));
        return reply.code(201).header('location', `segments/${segment.id}`).send(segment);
      },
    );

    app.get(
      '/api/admin/segments/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getSegment',
          summary: 'Get a segment',
          description: 'One segment by id.',
          params: SegmentIdParams,
          response: { 200: AdminSegmentSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getSegment(deps, request.params.id),
    );

    app.put(
      '/api/admin/segments/:id',
      {
        config: { permission: 'UPDATE_SEGMENT' },
        schema: {
          tags,
          operationId: 'updateSegment',
          summary: 'Update segment by id',
          description:
            'Replaces name, description, project (absent: null) and constraints; 204. Records `segment-updated`.',
          params: SegmentIdParams,
          body: UpsertSegmentBody,
          response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const payload = { id: request.params.id, ...request.body };
        await changes.apply(deps, [{ action: 'updateSegment', payload }], actor(request));
        return reply.code(204).send(null);
      },
    );

    app.delete(
      '/api/admin/segments/:id',
      {
        config: { permission: 'DELETE_SEGMENT' },
        schema: {
          tags,
          operationId: 'removeSegment',
          summary: 'Deletes a segment by id',
          description:
            'Deletes an unused segment (204); a segment used by a strategy is a 409. Records `segment-deleted`.',
          params: SegmentIdParams,
          response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const payload = { id: request.params.id };
        await changes.apply(deps, [{ action: 'deleteSegment', payload }], actor(request));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/api/admin/segments/:id/strategies',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getStrategiesBySegmentId',
          summary: 'Get strategies that reference segment',
          description: 'The strategies that use the segment.',
          params: SegmentIdParams,
          response: { 200: SegmentStrategiesSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => getSegmentStrategies(deps, request.params.id),
    );

    await app.register(strategySegmentRoutes(deps, changes));
  });
