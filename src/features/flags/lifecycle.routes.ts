import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { FlagParams } from '../shapes/index.js';
import { FLAG_PATH } from './flags.schemas.js';
import { CompleteBody, LifecycleSchema } from './lifecycle.schemas.js';
import { completeFlag, getLifecycle, uncompleteFlag } from './lifecycle.service.js';

/** The lifecycle of a flag. */
export const lifecycleRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      `${FLAG_PATH}/lifecycle`,
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
      `${FLAG_PATH}/lifecycle/complete`,
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
          response: { 200: NoBody('Completed.'), ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const { projectId, featureName } = request.params;
        await completeFlag(deps, projectId, featureName, request.body, actor(request));
        return sendEmpty(reply, 200);
      },
    );

    app.post(
      `${FLAG_PATH}/lifecycle/uncomplete`,
      {
        config: { permission: 'UPDATE_FEATURE' },
        schema: {
          tags: ['Lifecycle'],
          operationId: 'uncomplete',
          summary: 'Set flag lifecycle to uncompleted',
          description:
            'Takes a completed flag back to the stage it had before completion and records `feature-uncompleted`. A flag that is not completed is a 400.',
          params: FlagParams,
          response: { 200: NoBody('Uncompleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await uncompleteFlag(deps, request.params.projectId, request.params.featureName, actor(request));
        return sendEmpty(reply, 200);
      },
    );
  });
