import { Type } from 'typebox';
import { actor } from '../../platform/http/auth.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { SdkPorts } from '../client-api/index.js';
import { DeltaHeaders, DeltaResponse, StreamingHeaders, StreamingResponse } from './client-delta.schemas.js';
import { ClientDelta, cursorOf, parseCursor, scopeOf } from './client-delta.service.js';
import { Streams } from './client-delta.stream.js';

export const clientDeltaRoutes = ({ config, configuration, tokenValid }: SdkPorts) =>
  routes(async (app) => {
    const delta = new ClientDelta(configuration, config.DELTA_RING_SIZE);
    const streams = new Streams(delta, {
      max: config.STREAMING_MAX_CONNECTIONS,
      keepAliveMs: config.STREAMING_KEEPALIVE_MS,
    });
    app.addHook('onReady', async () => streams.start());
    // Before the server closes: open streams would otherwise keep it waiting.
    app.addHook('preClose', async () => {
      streams.stop();
      delta.stop();
    });

    app.get(
      '/api/client/delta',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'getClientFeaturesDelta',
          summary: 'Get flag changes since a cursor (SDK)',
          description:
            'The changes to the token\'s flags and segments after the revision in `If-None-Match` (ETag `"<event id>"`), or a hydration when there is none or it is too old; 304 when nothing the token sees changed.',
          headers: DeltaHeaders,
          response: {
            200: DeltaResponse,
            304: Type.Null({ description: 'Not modified: nothing the token sees changed since the cursor.' }),
            ...errorResponses(401, 403),
          },
        },
      },
      async (request, reply) => {
        const events = await delta.eventsFor(
          scopeOf(actor(request)),
          parseCursor(request.headers['if-none-match']),
        );
        const cursor = cursorOf(events);
        // A 304 has no body and no headers to speak of (the SDK keeps its cursor).
        if (cursor === undefined) return sendEmpty(reply, 304);
        return reply.header('ETag', `"${cursor}"`).header('Cache-Control', 'no-cache').send({ events });
      },
    );

    app.get(
      '/api/client/streaming',
      {
        config: { permission: 'CLIENT' },
        schema: {
          tags: ['Client'],
          operationId: 'streamClientFeatures',
          summary: 'Stream flag changes (SDK, server-sent events)',
          description:
            "Server-sent events: `unleash-connected` with a hydration (or, with `Last-Event-ID` this instance can still answer, only the later changes), then `unleash-updated` for each change in the token's scope. Ends when the token is deleted or the service stops. 503 when the instance serves STREAMING_MAX_CONNECTIONS streams.",
          headers: StreamingHeaders,
          response: { 200: StreamingResponse, ...errorResponses(401, 403, 503) },
        },
      },
      async (request, reply) => {
        streams.admit();
        const principal = actor(request);
        const secret = request.headers.authorization;
        // Tokens are checked again while the stream is open; sessions and personal tokens of
        // admins are not API tokens and keep their stream until it ends.
        const stillValid =
          principal.kind === 'client-token' && secret ? () => tokenValid(secret) : async () => true;
        // Anything that can fail (the configuration's first read) fails before the reply is taken
        // over, as a JSON error.
        await delta.ring(scopeOf(principal).environment);
        reply.hijack();
        const headers = Object.fromEntries(
          Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]),
        );
        await streams.accept(
          reply.raw,
          scopeOf(principal),
          parseCursor(request.headers['last-event-id']),
          stillValid,
          headers,
        );
      },
    );
  });
