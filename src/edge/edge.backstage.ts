import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sdkScope } from '../features/client-api/index.js';
import { actor } from '../platform/http/auth.js';
import { errorBody } from '../platform/http/errors.js';
import { errorResponses } from '../platform/http/schemas.js';
import type { UpstreamConfiguration } from './edge.configuration.js';
import type { UpstreamReporting } from './edge.reporting.js';
import type { EdgeTokens } from './edge.tokens.js';

interface BackstageParts {
  configuration: UpstreamConfiguration;
  tokens: EdgeTokens;
  reporting: UpstreamReporting;
}

const EdgeHealth = Type.Object(
  {
    health: Type.Literal('GOOD', { description: 'The replica is up.' }),
    ready: Type.Boolean({ description: 'Whether it holds a configuration and serves SDKs.' }),
    mode: Type.Union([Type.Literal('upstream'), Type.Literal('offline')], {
      description: 'Where its configuration comes from: an upstream, or a bootstrap file (offline).',
    }),
    upstream: Type.Union([Type.Literal('connected'), Type.Literal('unreachable')], {
      description: 'How its last request to the upstream (offline: its read of the file) went.',
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
export function registerEdgeHealth(
  app: FastifyInstance,
  configuration: UpstreamConfiguration,
  mode: 'upstream' | 'offline',
) {
  const state = () => ({
    health: 'GOOD' as const,
    mode,
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
export function registerEdgeBackstage(
  app: FastifyInstance,
  { configuration, tokens, reporting }: BackstageParts,
) {
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
  registerEdgeDebug(app, { configuration, tokens, reporting });
}

/**
 * A token as the debug endpoints show it: never its secret. Unleash's form keeps its scope and
 * the secret's first and last six characters (as Unleash Edge shows it); any other form, its
 * first four.
 */
export function anonymise(secret: string): string {
  const unleash = /^([^:\s]+):([^.\s]+)\.(\S+)$/.exec(secret);
  if (unleash) {
    const [, project, environment, hash = ''] = unleash;
    const shown = hash.length >= 24 ? `${hash.slice(0, 6)}****${hash.slice(-6)}` : '****';
    return `${project}:${environment}.${shown}`;
  }
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}****`;
}

const Described = (description: string) => Type.Unknown({ description });
const debugSchema = (operationId: string, summary: string, description: string) => ({
  tags: ['Unleash Edge'],
  operationId,
  summary,
  description: `${description} Needs a client token this replica serves; shows that token's environment only (Unleash Edge serves these without a token, for every environment).`,
  response: {
    200: Described('The replica\u2019s state, as described.'),
    ...errorResponses(401, 403),
  },
});

/** Downstream Unleash Edge instances that reported to this one (`POST /api/client/metrics/edge`). */
const INSTANCES_MAX = 1000;

/**
 * Unleash Edge's debugging endpoints: `/internal-backstage/features`, `/tokens`, `/metricsbatch`,
 * `/instancedata`, and `POST /api/client/metrics/edge`, where a chained Unleash Edge reports
 * itself. Behind a client token, scoped to its environment: the flags' configuration (constraint
 * values are often user ids or addresses) is not for whoever reaches the port.
 */
function registerEdgeDebug(app: FastifyInstance, { configuration, tokens, reporting }: BackstageParts) {
  const instances = new Map<string, Record<string, unknown>>();
  const started = new Date().toISOString();
  /** A debugging read: a client token's, never cached (it shows the replica's state now). */
  const debug = (
    path: string,
    [operationId, summary, description]: [string, string, string],
    answer: (scope: { environment: string; projects: string[] }) => unknown,
  ) =>
    app.get(
      path,
      { config: { permission: 'CLIENT' }, schema: debugSchema(operationId, summary, description) },
      async (request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return answer(sdkScope(actor(request)));
      },
    );

  debug(
    '/internal-backstage/features',
    [
      'getEdgeBackstageFeatures',
      'The configuration the replica holds',
      "The client-features document of the token's environment (its projects' flags), as the replica holds it, keyed by environment.",
    ],
    ({ environment, projects }) => {
      const document = configuration.documents().get(environment);
      if (!document) return {};
      const all = projects.includes('*');
      const features = document.features.filter((f) => all || projects.includes(f.project ?? 'default'));
      return { [environment]: { ...document, features } };
    },
  );

  debug(
    '/internal-backstage/tokens',
    [
      'getEdgeBackstageTokens',
      'The tokens the replica fetches with and those it knows',
      '`tokenRefreshes`: each startup token of the environment and how its fetches go; `tokenValidationStatus`: the SDK tokens known valid (`Validated` by the upstream, or `Trusted`: pretrusted); `invalidTokenCount`: strings sent that are not valid.',
    ],
    ({ environment }) => {
      const shown = <T extends { token: string }>(t: T) => ({ ...t, token: anonymise(t.token) });
      const known = tokens.knownTokens();
      return {
        tokenRefreshes: configuration
          .refreshes()
          .filter((r) => r.token.environment === environment)
          .map((r) => ({ ...r, token: { ...shown(r.token), status: 'Validated' } })),
        tokenValidationStatus: known.valid.filter((t) => t.environment === environment).map(shown),
        invalidTokenCount: known.invalid,
      };
    },
  );

  debug(
    '/internal-backstage/metricsbatch',
    [
      'getEdgeBackstageMetricsBatch',
      'The SDK metrics waiting to be sent upstream',
      'The registrations and hourly counts collected since the last send, as they will be sent (`POST /api/client/metrics/bulk`).',
    ],
    ({ environment }) => {
      const { metrics, applications } = reporting.pending();
      return {
        applications: applications.filter((a) => a.environment === environment),
        metrics: metrics.filter((m) => m.environment === environment),
      };
    },
  );

  debug(
    '/internal-backstage/instancedata',
    [
      'getEdgeBackstageInstanceData',
      'This replica and the Unleash Edge instances behind it',
      '`this_instance`: this replica; `connected_instances`: what each chained Unleash Edge last reported (`POST /api/client/metrics/edge`), by identifier.',
    ],
    () => ({
      this_instance: { identifier: reporting.self.instanceId, appName: reporting.self.appName, started },
      connected_instances: [...instances.values()],
    }),
  );

  app.post(
    '/api/client/metrics/edge',
    {
      config: { permission: 'CLIENT' },
      schema: {
        tags: ['Unleash Edge'],
        operationId: 'postEdgeInstanceData',
        summary: 'A chained Unleash Edge reports itself',
        description:
          'Kept per identifier (the latest report) and shown by `/internal-backstage/instancedata`; not sent upstream (Unleash\u2019s open-source server has no such endpoint).',
        body: Type.Object(
          {
            identifier: Type.String({ minLength: 1, maxLength: 255, description: 'The instance\u2019s id.' }),
          },
          { additionalProperties: true, description: 'Unleash Edge\u2019s instance data.' },
        ),
        response: {
          202: Type.Null({ description: 'Accepted.' }),
          ...errorResponses(400, 401, 403, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { identifier: string } & Record<string, unknown>;
      if (instances.size >= INSTANCES_MAX && !instances.has(body.identifier)) {
        instances.delete(instances.keys().next().value as string);
      }
      instances.delete(body.identifier);
      instances.set(body.identifier, body);
      return reply.code(202).send(null);
    },
  );
}
