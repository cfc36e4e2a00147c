import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  ContextFieldListSchema,
  ContextFieldSchema,
  ContextStrategiesSchema,
  CreateContextFieldBody,
  LegalValue,
  ProjectContextParams,
  ProjectLegalValueParams,
  ProjectScopeParams,
  UpdateContextFieldBody,
  ValidateNameBody,
} from './context.schemas.js';
import * as service from './context.service.js';

const NoBody = Type.Null({ description: 'No body.' });
const BASE = '/api/admin/projects/:projectId/context';
const tags = ['Context'];

/**
 * Project-specific context fields (`…/projects/:projectId/context…`): the same operations as
 * `/api/admin/context`, seeing only the project's own fields (others are 404 here).
 */
export const projectContextRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      BASE,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getContextFieldsForProject',
          summary: "List a project's context fields",
          description:
            'The context fields that belong to the project; with `include=root` the root fields too (as the strategy form of Unleash asks for them).',
          params: ProjectScopeParams,
          querystring: Type.Object({
            include: Type.Optional(
              Type.String({
                description: '`root` adds the root context fields; other values change nothing.',
              }),
            ),
          }),
          response: { 200: ContextFieldListSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) =>
        service.listContextFields(deps, request.params.projectId, request.query.include === 'root'),
    );

    app.post(
      BASE,
      {
        config: { permission: 'CREATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'createContextFieldForProject',
          summary: 'Create a context field in a project',
          description:
            'Creates a field that belongs to the project and records `context-field-created`; 409 when the name is taken anywhere.',
          params: ProjectScopeParams,
          body: CreateContextFieldBody,
          response: { 201: ContextFieldSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await service.createContextField(deps, request.body, actor(request), request.params.projectId),
          ),
    );

    app.post(
      `${BASE}/validate`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'validateContextFieldNameForProject',
          summary: 'Validate a context field name',
          description:
            '200 when the name is valid and free (names are unique across projects), 409 when taken.',
          params: ProjectScopeParams,
          body: ValidateNameBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.validateName(deps, request.body.name);
        return reply.send(null);
      },
    );

    app.get(
      `${BASE}/:contextField`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getContextFieldForProject',
          summary: "Get a project's context field",
          description: 'One field of the project (404 for a field of another project or none).',
          params: ProjectContextParams,
          response: { 200: ContextFieldSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.getContextField(deps, request.params.contextField, request.params.projectId),
    );

    app.put(
      `${BASE}/:contextField`,
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'updateContextFieldForProject',
          summary: "Update a project's context field",
          description:
            'Changes the properties sent (absent keeps, null clears) of a field of the project; it stays in the project. Records `context-field-updated`.',
          params: ProjectContextParams,
          body: UpdateContextFieldBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const { projectId, contextField } = request.params;
        await service.updateContextField(deps, contextField, request.body, actor(request), projectId);
        return reply.send(null);
      },
    );

    app.delete(
      `${BASE}/:contextField`,
      {
        config: { permission: 'DELETE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'deleteContextFieldForProject',
          summary: "Delete a project's context field",
          description: 'Deletes a field of the project and records `context-field-deleted`.',
          params: ProjectContextParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, contextField } = request.params;
        await service.deleteContextField(deps, contextField, actor(request), projectId);
        return reply.send(null);
      },
    );

    app.post(
      `${BASE}/:contextField/legal-values`,
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'updateContextFieldLegalValueForProject',
          summary: "Add or update a legal value of a project's field",
          description: 'As `POST /api/admin/context/:name/legal-values`, for a field of the project.',
          params: ProjectContextParams,
          body: LegalValue,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const { projectId, contextField } = request.params;
        await service.upsertLegalValue(deps, contextField, request.body, actor(request), projectId);
        return reply.send(null);
      },
    );

    app.delete(
      `${BASE}/:contextField/legal-values/:legalValue`,
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'deleteContextFieldLegalValueForProject',
          summary: "Delete a legal value of a project's field",
          description:
            'As `DELETE /api/admin/context/:name/legal-values/:value`, for a field of the project.',
          params: ProjectLegalValueParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { projectId, contextField, legalValue } = request.params;
        await service.deleteLegalValue(deps, contextField, legalValue, actor(request), projectId);
        return reply.send(null);
      },
    );

    app.get(
      `${BASE}/:contextField/strategies`,
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getStrategiesByContextFieldForProject',
          summary: "Get the project's strategies that use its context field",
          description: "Strategies of the project's flags with a constraint on the project's field.",
          params: ProjectContextParams,
          response: { 200: ContextStrategiesSchema, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        service.getStrategiesUsingField(deps, request.params.contextField, request.params.projectId),
    );
  });
