import type { FastifyError, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { actor } from '../../platform/http/auth.js';
import { registerCors } from '../../platform/http/cors.js';
import { AppError } from '../../platform/http/errors.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { matchesEtag, type SdkPorts } from '../client-api/index.js';
import {
  OfrepBulkFailure,
  OfrepBulkHeaders,
  OfrepBulkQuery,
  OfrepBulkSuccess,
  OfrepFailure,
  OfrepFlagParams,
  OfrepRequest,
  OfrepSuccess,
} from './ofrep.schemas.js';
import { evaluateOfrepFlag, evaluateOfrepFlags, type OfrepBulkAnswer } from './ofrep.service.js';

const TAGS = ['OpenFeature (OFREP)'];
const PREFIX = '/ofrep/v1/evaluate/flags';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a body serialised here (OFREP values are of any JSON type; no response serialiser runs). */
const sendJson = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));

/** The bulk answer, or 304 when `If-None-Match` names its ETag. */
function sendBulk(reply: FastifyReply, answer: OfrepBulkAnswer, ifNoneMatch: string | undefined) {
  reply.header('ETag', answer.etag).header('Cache-Control', 'no-cache');
  if (matchesEtag(ifNoneMatch, answer.etag)) return reply.code(304).removeHeader('content-type').send();
  return reply.type(JSON_TYPE).send(answer.bytes);
}

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0) for client and frontend tokens: one flag
 * (`POST /ofrep/v1/evaluate/flags/{key}`, for server providers) or all flags of the token's scope
 * (`POST /ofrep/v1/evaluate/flags`, for web providers, with ETag/304), evaluated with the engine's
 * SDK path on the in-memory configuration as the client and frontend APIs do. CORS as the
 * frontend API's.
 *
 * Errors of the request itself (a body that is not JSON or whose `context` is not an object: 400,
 * and 500) have OFREP's own body, `{key, errorCode, errorDetails}` (bulk: no `key`), not the
 * service's `Error`: the OpenFeature providers read `errorCode` from it. 401 and 403 (no body in
 * OFREP), 413 and 415 keep the service's `Error` body: this context's error handler passes them on
 * to the app's by throwing them again.
 */
export const ofrepRoutes = (ports: SdkPorts) =>
  routes(async (root) => {
    await root.register(
      routes(async (app) => {
        await registerCors(app, ports.origins);

        app.setErrorHandler((error: FastifyError, request, reply) => {
          const status = error instanceof AppError ? error.status : (error.statusCode ?? 500);
          const key = (request.params as { key?: string } | undefined)?.key;
          const withKey = (body: object) => (key === undefined ? body : { key, ...body });
          if (!(error instanceof AppError) && (error.validation || status === 400)) {
            const errorDetails = error.validation
              ? `The request body is not an OFREP evaluation request: ${error.message}`
              : 'The request body is not valid JSON.';
            sendJson(reply, 400, withKey({ errorCode: 'INVALID_CONTEXT', errorDetails }));
            return;
          }
          if (status >= 500) {
            request.log.error({ err: error }, 'request failed');
            sendJson(
              reply,
              500,
              withKey({
                errorCode: 'GENERAL',
                errorDetails: 'The evaluation failed on our side; the error has been logged.',
              }),
            );
            return;
          }
          throw error; // 401, 403, 413, 415, 429: the app's handler, with the service's Error body
        });

        app.post(
          '/:key',
          {
            config: { permission: 'SDK' },
            schema: {
              tags: TAGS,
              operationId: 'ofrepEvaluateFlag',
              summary: 'Evaluate one flag (OpenFeature OFREP).',
              description:
                "One flag of the token's projects in the token's environment for the context. The value is a boolean for a flag without variants, else the chosen variant's payload (string, number, or object for `json`) or, for variants without payloads, the variant name; when a non-boolean flag has no value (off, not enabled for the context, a variant without payload), the empty value of its kind (`\"\"`, `0` or `{}`) with its reason (`DISABLED`, `DEFAULT`), which the server providers take without an error. 404 `FLAG_NOT_FOUND` for a flag outside the token's scope; 400 `PARSE_ERROR` for a payload that is not of its type, `INVALID_CONTEXT` for a body that is not an evaluation request.",
              params: OfrepFlagParams,
              body: OfrepRequest,
              response: {
                200: OfrepSuccess,
                400: { ...OfrepFailure, description: 'INVALID_CONTEXT or PARSE_ERROR (OFREP body).' },
                404: { ...OfrepFailure, description: 'FLAG_NOT_FOUND (OFREP body).' },
                ...errorResponses(401, 403, 413, 415),
              },
            },
          },
          async (request, reply) => {
            const { key } = request.params;
            const context = (request.body.context ?? {}) as Record<string, unknown>;
            const result = await evaluateOfrepFlag(ports, actor(request), key, context);
            if (!result) {
              return sendJson(reply, 404, {
                key,
                errorCode: 'FLAG_NOT_FOUND',
                errorDetails: `No flag named "${key}" in this token's projects.`,
              });
            }
            return sendJson(reply, 'errorCode' in result ? 400 : 200, result);
          },
        );

        app.post(
          '',
          {
            config: { permission: 'SDK' },
            schema: {
              tags: TAGS,
              operationId: 'ofrepEvaluateFlagsBulk',
              summary: 'Evaluate all flags (OpenFeature OFREP).',
              description:
                "Every flag of the token's projects in the token's environment (off ones included) for the context, by name, each as the single evaluation gives it, except that a non-boolean flag without a value has no `value` (the web providers then give the application's default with the reason); a flag whose payload is not of its type is an inline `PARSE_ERROR` entry. The strong ETag is made from the body: 304 when `If-None-Match` carries it.",
              headers: OfrepBulkHeaders,
              querystring: OfrepBulkQuery,
              body: OfrepRequest,
              response: {
                200: OfrepBulkSuccess,
                304: Type.Null({ description: 'Not modified: the provider has this answer.' }),
                400: { ...OfrepBulkFailure, description: 'INVALID_CONTEXT (OFREP body).' },
                ...errorResponses(401, 403, 413, 415),
              },
            },
          },
          async (request, reply) => {
            const context = (request.body.context ?? {}) as Record<string, unknown>;
            const answer = await evaluateOfrepFlags(ports, actor(request), context);
            return sendBulk(reply, answer, request.headers['if-none-match']);
          },
        );
      }),
      { prefix: PREFIX },
    );
  });
