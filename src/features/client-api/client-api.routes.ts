import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ConfigurationCache } from '../snapshot/index.js';
import { acceptsGzip, matchesEtag, sendSerialised } from './client-api.payload.js';
import {
  ClientFeaturesHeaders,
  ClientFeaturesResponse,
  MetricsBody,
  RegisterBody,
} from './client-api.schemas.js';
import { clientFeature, clientFeatures, recordMetrics, registerClient } from './client-api.service.js';
import { metricsBatch } from './metrics.batch.service.js';

export const clientApiRoutes = (deps: Deps, configuration: ConfigurationCache) =>
  routes(async (app) => {
    // Metrics still pending are written when the app closes.
    const batch = metricsBatch(deps, app.log);
    app.addHook('onClose', () => batch.close());

    app.get(
      '/api/client/features',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'getAllClientFeatures',
          summary: 'Get all flags (SDK)',
          description:
            "The flags of the client token's projects in its environment. Answers 304 when `If-None-Match` carries the current ETag.",
          headers: ClientFeaturesHeaders,
          response: {
            200: ClientFeaturesResponse,
            304: Type.Null({ description: 'Not modified: the SDK has the current payload.' }),
            ...errorResponses(401, 403),
          },
        },
      },
      async (request, reply) => {
        const payload = await clientFeatures(
          configuration,
          actor(request),
          request.headers['unleash-client-spec'],
        );
        reply.header('ETag', payload.etag).header('Cache-Control', 'no-cache');
        // A 304 has no body at all (a JSON `null` would announce Content-Length: 4 and never send it).
        if (matchesEtag(request.headers['if-none-match'], payload.etag)) {
          return reply.code(304).removeHeader('content-type').send();
        }
        // Pre-serialised (and pre-compressed for SDKs that accept gzip): no per-request work.
        return sendSerialised(reply, payload, acceptsGzip(request.headers['accept-encoding']));
      },
    );

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
        await registerClient(deps, actor(request), request.body, request.ip);
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
        await recordMetrics(deps, actor(request), request.body, request.ip);
        return reply.code(202).send(null);
      },
    );
  });
