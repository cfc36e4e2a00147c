import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import {
  ActionConfigSchema,
  ActionSetBody,
  ActionSetEventListSchema,
  ActionSetListSchema,
  ActionSetParams,
  ActionSetSchema,
  EventsQuery,
  ProjectParams,
} from './actions.schemas.js';
import {
  changeActionSet,
  createActionSet,
  getActionConfig,
  getActionSet,
  getActionSets,
  getRuns,
  removeActionSet,
  switchActionSet,
} from './actions.service.js';

const tags = ['Actions'];
const BASE = '/api/admin/projects/:projectId/actions';
const reads = errorResponses(400, 401, 403, 404);
const writes = errorResponses(400, 401, 403, 404, 409, 413, 415);

/** A project's action sets (ADMIN, at Unleash's paths), their runs, and what they can do. */
export const actionRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      BASE,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getProjectActions',
          summary: 'A project’s action sets',
          description: 'Every action set of the project, with its actions.',
          params: ProjectParams,
          response: { 200: ActionSetListSchema, ...reads },
        },
      },
      async (request) => getActionSets(deps, request.params.projectId),
    );

    app.get(
      `${BASE}/config`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getActionsConfig',
          summary: 'What actions can do',
          description:
            'The kinds of action, each with the permission it needs and the choices of its parameters here.',
          params: ProjectParams,
          response: { 200: ActionConfigSchema, ...reads },
        },
      },
      async (request) => getActionConfig(deps, request.params.projectId),
    );

    app.post(
      BASE,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createProjectAction',
          summary: 'Create an action set',
          description: 'Creates the action set with its actions; records `actions-created`.',
          params: ProjectParams,
          body: ActionSetBody,
          response: { 201: ActionSetSchema, ...writes },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await createActionSet(deps, request.params.projectId, request.body, actor(request))),
    );

    app.get(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getProjectAction',
          summary: 'An action set',
          description: 'The action set with its actions.',
          params: ActionSetParams,
          response: { 200: ActionSetSchema, ...reads },
        },
      },
      async (request) => getActionSet(deps, request.params.projectId, request.params.id),
    );

    app.put(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updateProjectAction',
          summary: 'Change an action set',
          description: 'Replaces its settings, filters and actions; records `actions-updated`.',
          params: ActionSetParams,
          body: ActionSetBody,
          response: { 200: ActionSetSchema, ...writes },
        },
      },
      async (request) =>
        changeActionSet(deps, request.params.projectId, request.params.id, request.body, actor(request)),
    );

    for (const state of ['on', 'off'] as const) {
      app.post(
        `${BASE}/:id/${state}`,
        {
          config: { permission: 'ADMIN' },
          schema: {
            tags,
            operationId: state === 'on' ? 'enableProjectAction' : 'disableProjectAction',
            summary: state === 'on' ? 'Enable an action set' : 'Disable an action set',
            description: `${state === 'on' ? 'It runs on matching signals again' : 'It stops running'}; records \`actions-updated\`.`,
            params: ActionSetParams,
            response: { 200: ActionSetSchema, ...reads },
          },
        },
        async (request) =>
          switchActionSet(deps, request.params.projectId, request.params.id, state === 'on', actor(request)),
      );
    }

    app.delete(
      `${BASE}/:id`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'deleteProjectAction',
          summary: 'Delete an action set',
          description: 'Deletes it with its runs; records `actions-deleted`.',
          params: ActionSetParams,
          response: { 200: NoBody('Deleted.'), ...reads },
        },
      },
      async (request, reply) => {
        await removeActionSet(deps, request.params.projectId, request.params.id, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.get(
      `${BASE}/:id/events`,
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getProjectActionEvents',
          summary: 'An action set’s runs',
          description: 'Its kept runs, newest first, each with the signal and every action’s outcome.',
          params: ActionSetParams,
          querystring: EventsQuery,
          response: { 200: ActionSetEventListSchema, ...reads },
        },
      },
      async (request) =>
        getRuns(
          deps,
          request.params.projectId,
          request.params.id,
          request.query.limit ?? 50,
          request.query.offset ?? 0,
        ),
    );
  });
