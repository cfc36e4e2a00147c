import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  FeedbackCreateBody,
  FeedbackSchema,
  FeedbackUpdateBody,
  IdParams,
  SplashSchema,
} from './ui-state.schemas.js';
import { giveFeedback, seeSplash, updateFeedback } from './ui-state.service.js';

const tags = ['Admin UI'];

export const uiStateRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.post(
      '/api/admin/feedback',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'createFeedback',
          summary: 'Record feedback the user gave',
          description:
            "Marks the questionnaire as answered now for the signed-in user (API tokens: 400). No event: it is the user's own state.",
          body: FeedbackCreateBody,
          response: { 200: FeedbackSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request) => giveFeedback(deps, actor(request), request.body.feedbackId, request.body.neverShow),
    );

    app.put(
      '/api/admin/feedback/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'updateFeedback',
          summary: 'Change feedback the user gave',
          description:
            "Changes `neverShow` and/or `given` of the signed-in user's feedback (API tokens: 400).",
          params: IdParams,
          body: FeedbackUpdateBody,
          response: { 200: FeedbackSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request) => updateFeedback(deps, actor(request), request.params.id, request.body),
    );

    app.post(
      '/api/admin/splash/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'updateSplashSettings',
          summary: 'Mark a splash screen seen',
          description: 'Records that the signed-in user has seen the splash screen (API tokens: 400).',
          params: IdParams,
          response: { 200: SplashSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => seeSplash(deps, actor(request), request.params.id),
    );
  });
