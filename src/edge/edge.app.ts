import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Config } from '../config.js';
import { answerNotModifiedEarly, clientApiRoutes, type SdkPorts } from '../features/client-api/index.js';
import { clientDeltaRoutes } from '../features/client-delta/index.js';
import { frontendApiRoutes } from '../features/frontend-api/index.js';
import { ofrepRoutes } from '../features/ofrep/index.js';
import { EdgeTokenList, ValidEdgeTokens } from '../features/shapes/index.js';
import { registerAuth } from '../platform/http/auth.js';
import { parseOrigins } from '../platform/http/cors.js';
import { errorBody } from '../platform/http/errors.js';
import { errorResponses } from '../platform/http/schemas.js';
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
    servingBackupOf: Type.Optional(
      Type.String({
        description:
          'Restarted while the upstream was away: when the configuration it serves from EDGE_BACKUP_FOLDER was saved.',
      }),
    ),
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
    ...(configuration.servingBackupOf && { servingBackupOf: configuration.servingBackupOf }),
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
 * Unleash Edge's probes, for the Kubernetes manifests and scripts written for it:
 * `/internal-backstage/health` is `{status: "OK"}` while the process runs; `/internal-backstage/ready`
 * is `{status: "READY"}` once the replica holds a configuration, else 503 with Edge's
 * `{error, status: "NOTREADY"}` beside this service's error fields.
 */
function registerEdgeBackstage(app: FastifyInstance, configuration: UpstreamConfiguration) {
  const Status = (status: string, description: string) =>
    Type.Object(
      { status: Type.Literal(status, { description }) },
      { description: 'Unleash Edge’s probe answer.' },
    );
  app.get(
    '/internal-backstage/health',
    {
      config: { permission: 'PUBLIC' },
      schema: {
        tags: ['Operational'],
        operationId: 'getEdgeBackstageHealth',
        summary: 'Is the replica alive? (Unleash Edge’s probe)',
        description: 'Always `{"status": "OK"}` while the process runs.',
        response: { 200: Status('OK', 'Alive.') },
      },
    },
    async () => ({ status: 'OK' as const }),
  );
  app.get(
    '/internal-backstage/ready',
    {
      config: { permission: 'PUBLIC' },
      schema: {
        tags: ['Operational'],
        operationId: 'getEdgeBackstageReady',
        summary: 'Does the replica serve SDKs? (Unleash Edge’s probe)',
        description:
          '`{"status": "READY"}` once it holds a configuration (also while the upstream is away); 503 with `status: "NOTREADY"` before.',
        response: {
          200: Status('READY', 'Serving.'),
          503: Type.Object(
            {
              id: Type.String({ description: 'Error id.' }),
              name: Type.String({ description: 'Error name.' }),
              message: Type.String({ description: 'What is wrong.' }),
              error: Type.String({ description: 'Unleash Edge’s message.' }),
              status: Type.Literal('NOTREADY', { description: 'Not serving yet.' }),
            },
            { description: 'No configuration yet.' },
          ),
        },
      },
    },
    async (_request, reply) => {
      if (configuration.ready) return { status: 'READY' as const };
      const message = 'This edge replica has no configuration from its upstream yet.';
      const body = errorBody('ServiceUnavailableError', message);
      return reply
        .code(503)
        .send({ ...body, error: 'Edge is not ready to serve requests', status: 'NOTREADY' as const });
    },
  );
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
  registerEdgeHealth(app, configuration);
  registerEdgeBackstage(app, configuration);
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
  // for tokens the replica checked lately; it counts no metrics (a replica serves none).
  // It matches the path before routing: under a base path (rewritten at routing) it is left out.
  if (!config.EDGE_BASE_PATH)
    answerNotModifiedEarly(app, config, {
      configuration,
      known: (secret) => tokens.known(secret),
      record: () => {},
    });
  await app.register(clientDeltaRoutes(ports));
  await app.register(frontendApiRoutes(ports, { alsoAt: ['/api/proxy'], all: true }));
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
