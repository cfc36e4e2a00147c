import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import type { Config } from '../config.js';
import { answerNotModifiedEarly, clientApiRoutes, type SdkPorts } from '../features/client-api/index.js';
import { clientDeltaRoutes } from '../features/client-delta/index.js';
import { answerFrontendEarly, frontendApiRoutes } from '../features/frontend-api/index.js';
import { ofrepRoutes } from '../features/ofrep/index.js';
import { EdgeTokenList, ValidEdgeTokens } from '../features/shapes/index.js';
import { registerAuth } from '../platform/http/auth.js';
import { parseOrigins } from '../platform/http/cors.js';
import { registerMetrics } from '../platform/http/metrics.js';
import { errorResponses } from '../platform/http/schemas.js';
import { createServer } from '../platform/http/server.js';
import { registerEdgeBackstage, registerEdgeHealth } from './edge.backstage.js';
import type { UpstreamConfiguration } from './edge.configuration.js';
import type { UpstreamReporting } from './edge.reporting.js';
import type { EdgeTokens } from './edge.tokens.js';

export interface EdgeParts {
  config: Config;
  configuration: UpstreamConfiguration;
  tokens: EdgeTokens;
  reporting: UpstreamReporting;
}

/**
 * `POST /edge/validate` as the upstream serves it, for replicas chained behind this one: each token
 * is checked with this replica's upstream, and only those it serves are listed.
 */
function registerEdgeValidate(app: FastifyInstance, tokens: EdgeTokens) {
  app.post(
    '/edge/validate',
    {
      config: { permission: 'PUBLIC' },
      schema: {
        tags: ['Unleash Edge'],
        operationId: 'getValidTokens',
        summary: 'Check which tokens are valid (for a chained replica)',
        description:
          'The tokens of the list that are valid upstream and that this replica serves, with their type, environment and projects.',
        body: EdgeTokenList,
        response: { 200: ValidEdgeTokens, ...errorResponses(400, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store'); // the answer repeats the secrets it was sent
      return { tokens: await tokens.servable((request.body as Static<typeof EdgeTokenList>).tokens) };
    },
  );
}

/**
 * The HTTP app of an edge replica: the service's SDK routes (client API, delta and streaming,
 * frontend API, OFREP) on ports backed by the upstream instead of a database.
 */
export async function buildEdgeApp({ config, configuration, tokens, reporting }: EdgeParts) {
  const app = createServer(config, { basePath: config.EDGE_BASE_PATH });
  registerAuth(app, {
    header: (secret) => tokens.resolve(secret),
    session: async () => null,
    sessionCookie: 'flagship-session',
    projectOfFlag: async () => undefined,
  });
  // Prometheus, at Unleash Edge's path and at the service's.
  const recordAnswer = registerMetrics(app, [
    '/internal-backstage/metrics',
    '/internal-backstage/prometheus',
  ]);
  registerEdgeHealth(app, configuration, config.EDGE_BOOTSTRAP_FILE ? 'offline' : 'upstream');
  registerEdgeBackstage(app, { configuration, tokens, reporting });
  registerEdgeValidate(app, tokens);
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
  // for tokens the replica checked lately; it counts no SDK usage (an answer that changed nothing).
  // It matches the path before routing: under a base path (rewritten at routing) it is left out.
  if (!config.EDGE_BASE_PATH)
    answerNotModifiedEarly(app, config, {
      configuration,
      known: (secret) => tokens.known(secret),
      record: recordAnswer,
    });
  await app.register(clientDeltaRoutes(ports));
  await app.register(
    frontendApiRoutes(ports, { alsoAt: ['/api/proxy'], all: !config.EDGE_DISABLE_ALL_ENDPOINT }),
  );
  if (!config.EDGE_BASE_PATH)
    answerFrontendEarly(
      app,
      config,
      {
        configuration,
        known: (secret) => tokens.known(secret),
        origins: () => origins,
        now: ports.now,
        record: recordAnswer,
      },
      { all: !config.EDGE_DISABLE_ALL_ENDPOINT },
    );
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
