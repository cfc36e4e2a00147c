import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { actor } from '../../platform/http/auth.js';
import { registerCors } from '../../platform/http/cors.js';
import { routes, sendEmpty, whenReady } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { acceptsGzip, matchesEtag, type SdkPorts } from '../client-api/index.js';
import { contextFromQuery } from './frontend-api.context.js';
import { type FrontendAnswer, GZIP_FROM_BYTES } from './frontend-api.payload.js';
import {
  FrontendAllFeatures,
  FrontendFeature,
  FrontendFeatures,
  FrontendHeaders,
  FrontendMetricsBody,
  FrontendPostBody,
  FrontendQuery,
  FrontendRegisterBody,
} from './frontend-api.schemas.js';
import {
  frontendFeature,
  frontendFeatures,
  recordFrontendMetrics,
  registerFrontendClient,
} from './frontend-api.service.js';

const TAGS = ['Frontend API'];
const PREFIX = '/api/frontend';

/**
 * The answer as it was serialised once; 304 for a GET whose `If-None-Match` names its ETag. A kept
 * answer (served again for the same context) goes gzip-compressed to clients that accept it,
 * compressed once; an answer made for this request alone is not worth compressing.
 */
function sendAnswer(
  reply: FastifyReply,
  { answer, kept }: { answer: FrontendAnswer; kept: boolean },
  headers: { 'if-none-match'?: string; 'accept-encoding'?: string },
  conditional: boolean,
) {
  // CORS may have set `Vary: Origin` already.
  const vary = reply.getHeader('vary');
  reply
    .header('ETag', answer.etag)
    .header('Cache-Control', 'no-cache')
    .header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  if (conditional && matchesEtag(headers['if-none-match'], answer.etag)) {
    return reply.code(304).removeHeader('content-type').send();
  }
  reply.type('application/json; charset=utf-8');
  if (kept && answer.bytes.length >= GZIP_FROM_BYTES && acceptsGzip(headers['accept-encoding'])) {
    return reply.header('Content-Encoding', 'gzip').send(answer.gzipped());
  }
  return reply.send(answer.bytes);
}

/**
 * The Unleash frontend API for browser and mobile SDKs (frontend tokens), under `/api/frontend`
 * with CORS for these paths only: `ports.origins` (the service: the origins set through
 * `POST /api/admin/ui-config/cors`, else FRONTEND_CORS_ORIGINS).
 */
export const frontendApiRoutes = (ports: SdkPorts, options: { alsoAt?: string[]; all?: boolean } = {}) =>
  routes(async (root) => {
    // The same routes at the paths of the older Unleash proxy (Unleash Edge serves `/api/proxy`),
    // left out of the OpenAPI document; and, with `all`, Unleash Edge's `/all` beside each, which
    // answers every flag of the scope, the disabled ones with `enabled: false`.
    for (const [prefix, hidden] of [[PREFIX, false], ...(options.alsoAt ?? []).map((p) => [p, true])] as [
      string,
      boolean,
    ][]) {
      await root.register(frontendPaths(ports, { hidden, all: false }), { prefix });
      if (options.all)
        await root.register(frontendPaths(ports, { hidden, all: true }), { prefix: `${prefix}/all` });
    }
  });

const frontendPaths = (ports: SdkPorts, { hidden, all }: { hidden: boolean; all: boolean }) => {
  const id = (operationId: string) => {
    const named = all ? `${operationId}IncludingDisabled` : operationId;
    return hidden ? { operationId: `${named}AtProxyPath`, hide: true } : { operationId: named };
  };
  const answered = all ? FrontendAllFeatures : FrontendFeatures;
  const which = all
    ? "Every flag (enabled or not: `enabled` says) of the token's projects and environment, evaluated"
    : "The flags of the token's projects and environment that are enabled";
  return routes(async (app) => {
    await registerCors(app, ports.origins);

    app.get(
      '',
      {
        config: { permission: 'FRONTEND' },
        schema: {
          tags: TAGS,
          ...id('getFrontendFeatures'),
          summary: all
            ? 'Retrieve every feature flag, evaluated for the provided context.'
            : 'Retrieve enabled feature flags for the provided context.',
          description: `${which} for the context given as query parameters (\`properties[name]=value\` for properties). Answers 304 when \`If-None-Match\` carries the ETag of the same answer.`,
          querystring: FrontendQuery,
          headers: FrontendHeaders,
          response: {
            200: answered,
            304: Type.Null({ description: 'Not modified: the SDK has this answer.' }),
            ...errorResponses(400, 401, 403),
          },
        },
      },
      (request, reply) => {
        const query = request.query as Record<string, string | undefined>;
        const result = frontendFeatures(
          ports,
          actor(request),
          () => contextFromQuery(query),
          request.ip,
          query.sessionId ? request.url.slice(request.url.indexOf('?') + 1) : undefined,
          all,
        );
        return whenReady(result, (ready) => sendAnswer(reply, ready, request.headers, true));
      },
    );

    app.post(
      '',
      {
        config: { permission: 'FRONTEND' },
        schema: {
          tags: TAGS,
          ...id('getFrontendApiFeaturesWithPost'),
          summary: all
            ? 'Retrieve every feature flag, evaluated for the provided context, using POST.'
            : 'Retrieve enabled feature flags for the provided context, using POST.',
          description:
            'As the GET of this path, with the context in the body (`{context}`). Carries the ETag but never answers 304 (a POST is not a conditional read).',
          body: FrontendPostBody,
          response: { 200: answered, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      (request, reply) => {
        const result = frontendFeatures(
          ports,
          actor(request),
          () => (request.body.context ?? {}) as Record<string, unknown>,
          request.ip,
          undefined,
          all,
        );
        return whenReady(result, (ready) => sendAnswer(reply, ready, request.headers, false));
      },
    );

    // Unleash Edge has no single flag under `/all`.
    if (!all)
      app.get(
        '/features/:featureName',
        {
          config: { permission: 'FRONTEND' },
          schema: {
            tags: TAGS,
            ...id('getFrontendFeature'),
            summary: 'Retrieve one flag if it is enabled for the provided context.',
            description:
              "The flag as `GET /api/frontend` lists it, for the context given as query parameters; 404 when it is not enabled for that context or not in the token's scope.",
            params: Type.Object({ featureName: Type.String({ description: 'The flag name.' }) }),
            querystring: FrontendQuery,
            response: { 200: FrontendFeature, ...errorResponses(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          reply.header('Cache-Control', 'no-cache');
          return frontendFeature(
            ports,
            actor(request),
            () => contextFromQuery(request.query as Record<string, string | undefined>),
            request.ip,
            request.params.featureName,
          );
        },
      );

    app.post(
      '/client/metrics',
      {
        config: { permission: 'FRONTEND' },
        schema: {
          tags: TAGS,
          ...id('registerFrontendMetrics'),
          summary: 'Register client usage metrics',
          description:
            "Adds the yes/no counts of the bucket to the hourly counters of the token's environment, as the client API does. Answers 200 without a body, as Unleash.",
          body: FrontendMetricsBody,
          response: {
            200: Type.Null({ description: 'Accepted; no body.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await recordFrontendMetrics(ports, actor(request), request.body);
        return sendEmpty(reply, 200);
      },
    );

    app.post(
      '/client/register',
      {
        config: { permission: 'FRONTEND' },
        schema: {
          tags: TAGS,
          ...id('registerFrontendClient'),
          summary: 'Register a client SDK',
          description:
            "Records the application and the instance (as a frontend SDK) in the token's environment. Answers 200 without a body, as Unleash.",
          body: FrontendRegisterBody,
          response: {
            200: Type.Null({ description: 'Accepted; no body.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await registerFrontendClient(ports, actor(request), request.body, request.ip);
        return sendEmpty(reply, 200);
      },
    );
  });
};
