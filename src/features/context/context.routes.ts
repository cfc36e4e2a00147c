import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  ContextFieldListSchema,
  ContextFieldSchema,
  ContextParams,
  ContextStrategiesSchema,
  CreateContextFieldBody,
  LegalValue,
  LegalValueParams,
  UpdateContextFieldBody,
  ValidateNameBody,
} from './context.schemas.js';
import * as service from './context.service.js';
import { projectContextRoutes } from './project-context.routes.js';

const NoBody = Type.Null({ description: 'No body.' });

export const contextRoutes = (deps: Deps) =>
  routes(async (app) => {
    const tags = ['Context'];
    await app.register(projectContextRoutes(deps));

    app.get(
      '/api/admin/context',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getContextFields',
          summary: 'List context fields',
          description:
            'Every context field, by sort order then name, with how many flags and projects constrain on it.',
          response: { 200: ContextFieldListSchema, ...errorResponses(401, 403) },
        },
      },
      async () => service.listContextFields(deps),
    );

    app.post(
      '/api/admin/context',
      {
        config: { permission: 'CREATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'createContextField',
          summary: 'Create a context field',
          description:
            'Creates the field and records `context-field-created`; 409 when the name is taken, 404 for an unknown project.',
          body: CreateContextFieldBody,
          response: { 201: ContextFieldSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.createContextField(deps, request.body, actor(request))),
    );

    app.post(
      '/api/admin/context/validate',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'validateContextFieldName',
          summary: 'Validate a context field name',
          description: '200 when the name is valid and free, 400 when invalid, 409 when taken.',
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
      '/api/admin/context/:contextField',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getContextField',
          summary: 'Get a context field',
          description: 'One context field.',
          params: ContextParams,
          response: { 200: ContextFieldSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => service.getContextField(deps, request.params.contextField),
    );

    app.put(
      '/api/admin/context/:contextField',
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'updateContextField',
          summary: 'Update a context field',
          description: 'Changes the properties sent (null clears) and records `context-field-updated`.',
          params: ContextParams,
          body: UpdateContextFieldBody,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.updateContextField(deps, request.params.contextField, request.body, actor(request));
        return reply.send(null);
      },
    );

    app.delete(
      '/api/admin/context/:contextField',
      {
        config: { permission: 'DELETE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'deleteContextField',
          summary: 'Delete a context field',
          description:
            'Deletes the field (built-in ones too, as Unleash does) and records `context-field-deleted`.',
          params: ContextParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.deleteContextField(deps, request.params.contextField, actor(request));
        return reply.send(null);
      },
    );

    app.post(
      '/api/admin/context/:contextField/legal-values',
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'updateContextFieldLegalValue',
          summary: 'Add or update a legal value',
          description:
            'Adds the legal value to the field, or changes the description of the one it has; records `context-field-updated`.',
          params: ContextParams,
          body: LegalValue,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        await service.upsertLegalValue(deps, request.params.contextField, request.body, actor(request));
        return reply.send(null);
      },
    );

    app.delete(
      '/api/admin/context/:contextField/legal-values/:legalValue',
      {
        config: { permission: 'UPDATE_CONTEXT_FIELD' },
        schema: {
          tags,
          operationId: 'deleteContextFieldLegalValue',
          summary: 'Delete a legal value',
          description:
            'Removes the legal value from the field (constraints that use it keep it, as in Unleash); records `context-field-updated` when the field had it.',
          params: LegalValueParams,
          response: { 200: NoBody, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const { contextField, legalValue } = request.params;
        await service.deleteLegalValue(deps, contextField, legalValue, actor(request));
        return reply.send(null);
      },
    );

    app.get(
      '/api/admin/context/:contextField/strategies',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getStrategiesByContextField',
          summary: 'Get the strategies that use a context field',
          description:
            'Strategies with a constraint on the field, archived flags included; an unknown field has none.',
          params: ContextParams,
          response: { 200: ContextStrategiesSchema, ...errorResponses(401, 403) },
        },
      },
      async (request) => service.getStrategiesUsingField(deps, request.params.contextField),
    );
  });
