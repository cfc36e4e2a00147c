import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { answerNotModifiedEarly, clientApiRoutes, type SdkPorts } from '../features/client-api/index.js';
import { clientDeltaRoutes } from '../features/client-delta/index.js';
import { frontendApiRoutes } from '../features/frontend-api/index.js';
import { ofrepRoutes } from '../features/ofrep/index.js';
import { registerAuth } from '../platform/http/auth.js';
import { parseOrigins } from '../platform/http/cors.js';
import { errorBody } from '../platform/http/errors.js';
import { createServer } from '../platform/http/server.js';
import type { UpstreamConfiguration } from './edge.configuration.js';
import type { UpstreamReporting } from './edge.reporting.js';
import type { EdgeTokens } from './edge.tokens.js';

export interface EdgeParts {
  config: Config;
  configuration: UpstreamConfiguration;
  tokens: EdgeTokens;
  reporting: UpstreamReporting;
}

const EdgeHealth = Type.Object(
  {
    health: Type.Literal('GOOD', { description: 'The replica is up.' }),
    ready: Type.Boolean({ description: 'Whether it holds a configuration and serves SDKs.' }),
    upstream: Type.Union([Type.Literal('connected'), Type.Literal('unreachable')], {
      description: 'How its last request to the upstream went.',
    }),
    lastUpstreamSuccess: Type.Union([Type.String(), Type.Null()], {
      description: 'When the upstream last answered (ISO 8601), or null.',
    }),
  },
  { description: 'An edge replica’s state.' },
);

/** `/health` (alive: always 200, with the upstream's state) and `/ready` (503 until configured). */
function registerEdgeHealth(app: FastifyInstance, configuration: UpstreamConfiguration) {
  const state = () => ({
    health: 'GOOD' as const,
    ready: configuration.ready,
    upstream: configuration.upstreamState.reachable ? ('connected' as const) : ('unreachable' as const),
    lastUpstreamSuccess: configuration.upstreamState.lastSuccess?.toISOString() ?? null,
  });
  const schema = (operationId: string, summary: string, description: string) => ({
    tags: ['Operational'],
    operationId,
    summary,
    description,
    response: { 200: EdgeHealth, 503: Type.Ref('Error', { description: 'No configuration yet.' }) },
  });
  app.get(
    '/health',
    {
      config: { permission: 'PUBLIC' },
      schema: schema(
        'getHealth',
        'Is the replica alive?',
        'Always 200 while the process runs; says whether the upstream answers.',
      ),
    },
    async () => state(),
  );
  app.get(
    '/ready',
    {
      config: { permission: 'PUBLIC' },
      schema: schema(
        'getReady',
        'Does the replica serve SDKs?',
        '200 once it holds a configuration (also while the upstream is away: it serves the last one), 503 before.',
      ),
    },
    async (_request, reply) => {
      if (configuration.ready) return state();
      const message = 'This edge replica has no configuration from its upstream yet.';
      return reply.code(503).send(errorBody('ServiceUnavailableError', message, [{ message }]));
    },
  );
}

/**
 * The HTTP app of an edge replica: the service's SDK routes (client API, delta and streaming,
 * frontend API, OFREP) on ports backed by the upstream instead of a database.
 */
export async function buildEdgeApp({ config, configuration, tokens, reporting }: EdgeParts) {
  const app = createServer(config);
  registerAuth(app, {
    header: (secret) => tokens.resolve(secret),
    session: async () => null,
    sessionCookie: 'flagship-session',
    projectOfFlag: async () => undefined,
  });
  registerEdgeHealth(app, configuration);
  const origins = parseOrigins(config.FRONTEND_CORS_ORIGINS);
  const ports: SdkPorts = {
    config,
    now: () => new Date(),
    configuration,
    reporting,
    origins: () => origins,
    tokenValid: (secret) => tokens.stillValid(secret),
  };
  await app.register(clientApiRoutes(ports));
  // The SDK poll that finds nothing new, answered before routing as the service does (ADR 0018),
  // for tokens the replica checked lately; it counts no metrics (a replica serves none).
  answerNotModifiedEarly(app, config, {
    configuration,
    known: (secret) => tokens.known(secret),
    record: () => {},
  });
  await app.register(clientDeltaRoutes(ports));
  await app.register(frontendApiRoutes(ports));
  await app.register(ofrepRoutes(ports));
  // Before the server closes: open upstream streams and timers would keep the process alive.
  app.addHook('preClose', async () => {
    configuration.stop();
  });
  app.addHook('onClose', async () => {
    await reporting.close();
  });
  return Object.assign(app, { edge: { configuration, tokens, reporting } });
}
