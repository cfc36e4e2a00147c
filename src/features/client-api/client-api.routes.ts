import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { actor } from '../../platform/http/auth.js';
import { routes, whenReady } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import {
  acceptsGzip,
  type ClientPayload,
  matchesEtag,
  sendSerialised,
  validatorHeaders,
} from './client-api.payload.js';
import {
  BulkMetricsBody,
  ClientFeaturesHeaders,
  ClientFeaturesQuery,
  ClientFeaturesResponse,
  MetricsBody,
  RegisterBody,
} from './client-api.schemas.js';
import { clientFeature, clientFeatures, recordBulk } from './client-api.service.js';
import type { SdkPorts } from './sdk-ports.js';

/** The backend SDK API; what SDKs report goes to `ports.reporting` (database or upstream). */
/** The client API's answer: 304 for the ETag of this representation, else the kept bytes. */
function answerFeatures(reply: FastifyReply, payload: ClientPayload, gzip: boolean, ifNoneMatch?: string) {
  // Each representation has its own validator; the 304 compares the one this client gets.
  const etag = gzip ? payload.gzipEtag : payload.etag;
  reply.headers(validatorHeaders(etag));
  // A 304 has no body at all (a JSON `null` would announce Content-Length: 4 and never send it).
  if (matchesEtag(ifNoneMatch, etag)) {
    reply.code(304).removeHeader('content-type').send();
    return;
  }
  // Pre-serialised and, for SDKs that accept gzip, pre-compressed: no per-request work.
  sendSerialised(reply, payload, gzip);
}

export const clientApiRoutes = ({ configuration, reporting, now }: SdkPorts) =>
  routes(async (app) => {
    const options = (method: 'GET' | 'POST') => ({
      config: { permission: 'CLIENT' as const },
      schema: {
        tags: ['Client'],
        ...(method === 'GET'
          ? {
              operationId: 'getAllClientFeatures',
              summary: 'Get all flags (SDK)',
              description:
                "The flags of the client token's projects in its environment (those whose name starts with `namePrefix` when it is given). Answers 304 when `If-None-Match` carries the current ETag.",
            }
          : {
              operationId: 'getAllClientFeaturesWithPost',
              summary: 'Get all flags (SDK), using POST',
              description:
                'As `GET /api/client/features` (Unleash Edge serves this too); the body, if any, is ignored.',
            }),
        headers: ClientFeaturesHeaders,
        querystring: ClientFeaturesQuery,
        response: {
          200: ClientFeaturesResponse,
          ...(method === 'GET' && {
            304: Type.Null({ description: 'Not modified: the SDK has the current payload.' }),
          }),
          ...errorResponses(400, 401, 403, ...(method === 'POST' ? ([413] as const) : [])),
        },
      },
    });
    const handler = (
      request: FastifyRequest<{ Querystring: Static<typeof ClientFeaturesQuery> }>,
      reply: FastifyReply,
    ) => {
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      const payload = clientFeatures(
        configuration,
        actor(request),
        request.headers['unleash-client-spec'] as string | undefined,
        gzip,
        request.query.namePrefix,
      );
      // Answered at once when the configuration in memory is current (no promise).
      return whenReady(payload, (ready) =>
        // A POST is not a conditional read: never a 304.
        answerFeatures(
          reply,
          ready,
          gzip,
          request.method === 'POST' ? undefined : request.headers['if-none-match'],
        ),
      );
    };
    app.get('/api/client/features', options('GET'), handler);
    // Any body (or none, whatever its type) is taken and left unread, as Unleash Edge does.
    await app.register(async (post) => {
      post.removeAllContentTypeParsers();
      // Read (so the body limit holds: 413 past it), then dropped.
      post.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
      post.post('/api/client/features', options('POST'), handler);
    });

    app.get(
      '/api/client/features/:featureName',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'getClientFeature',
          summary: 'Get one flag (SDK)',
          description: "One flag of the client token's scope, in the Unleash client format.",
          headers: ClientFeaturesHeaders,
          params: Type.Object({ featureName: Type.String({ description: 'The flag name.' }) }),
          response: { 200: ClientFeaturesResponse, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        clientFeature(
          configuration,
          actor(request),
          request.headers['unleash-client-spec'],
          request.params.featureName,
        ),
    );

    app.post(
      '/api/client/register',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'registerClientApplication',
          summary: 'Register an SDK instance',
          description: "Records the application and instance; the environment is the token's.",
          body: RegisterBody,
          response: { 202: Type.Null({ description: 'Accepted.' }), ...errorResponses(400, 401, 403, 415) },
        },
      },
      async (request, reply) => {
        await reporting.register(actor(request), request.body, request.ip, null);
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/api/client/metrics',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'registerClientMetrics',
          summary: 'Report flag usage (SDK)',
          description:
            "Adds the yes/no counts of one bucket to the hourly counters of the token's environment.",
          body: MetricsBody,
          response: {
            202: Type.Null({ description: 'Accepted.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await reporting.metrics(actor(request), request.body, request.ip, null);
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/api/client/metrics/bulk',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Unleash Edge'],
          operationId: 'clientBulkMetrics',
          summary: 'Send metrics in bulk (edge replicas)',
          description:
            "Registrations and usage counts collected by an edge replica; entries of environments other than the token's are left out.",
          body: BulkMetricsBody,
          response: {
            202: Type.Null({ description: 'Accepted.' }),
            ...errorResponses(400, 401, 403, 413, 415),
          },
        },
      },
      async (request, reply) => {
        await recordBulk(reporting, actor(request), request.body, request.ip, now());
        return reply.code(202).send(null);
      },
    );
  });
