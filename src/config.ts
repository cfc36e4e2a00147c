import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { parseAllowList } from './platform/outgoing.js';
import { SECRET_KEY_PATTERN } from './platform/secret-box.js';

/** Environment variables the service reads, validated at boot. */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4242 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  DATA_DIR: Type.String({ default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /**
   * The embedded database's shared buffers in MB. PGlite's default (160 MB) is resident from the
   * start; 16 MB keeps the embedded service about 100 MB smaller (bench/RESULTS.md).
   */
  PGLITE_SHARED_BUFFERS_MB: Type.Integer({ minimum: 1, maximum: 4096, default: 16 }),
  /** Named prepared statements for large queries; set false behind a pooler that cannot keep them. */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  INIT_ADMIN_API_TOKENS: Type.Optional(Type.String()),
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /** Largest body of a flag import or its validation (features-batch), in bytes: exports are large. */
  IMPORT_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 52_428_800 }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info' },
  ),
  BASE_URI_PATH: Type.String({ default: '' }),
  /** Most evaluations (environments x flags x contexts) one advanced-playground request may ask for. */
  PLAYGROUND_EVALUATION_LIMIT: Type.Integer({ minimum: 1, default: 100_000 }),
  /** Where people reach the service (invite links; a https URL makes session cookies Secure). */
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /**
   * The key that encrypts secrets kept to be shown again (invite links), AES-256-GCM: 32 bytes as
   * 64 hex digits or 44 base64 characters. Unset: a key generated once and kept in the database.
   */
  SECRETS_KEY: Type.Optional(Type.String({ pattern: SECRET_KEY_PATTERN })),
  /** Login sessions last this long and are renewed when used in their second half. */
  SESSION_TTL_HOURS: Type.Number({ exclusiveMinimum: 0, default: 48 }),
  /**
   * Failed password logins per minute at one account from one client address; more answer 429
   * until the minute ends, for that address only (a success starts the count again). The account
   * is the user the username or email names (trimmed, any letter case), else that normalised name.
   */
  LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /**
   * Failed password logins per 15 minutes at one account from all addresses together: the ceiling
   * on guesses spread over many addresses. Keep it above what one address can reach within its
   * own budget (16 x `LOGIN_RATE_LIMIT`: 160 by default), so that one address alone never locks
   * the user out elsewhere.
   */
  LOGIN_ACCOUNT_FAILURE_LIMIT: Type.Integer({ minimum: 1, default: 200 }),
  /** Login requests per minute from one client address, whatever the account (password spraying). */
  LOGIN_ADDRESS_RATE_LIMIT: Type.Integer({ minimum: 1, default: 30 }),
  /**
   * API tokens, project tokens and personal (or service account) tokens one caller may create
   * per minute, per route: keyed by the calling principal (its kind and name).
   */
  TOKEN_CREATE_RATE_LIMIT: Type.Integer({ minimum: 1, default: 60 }),
  /** The first admin user of a fresh install (no users yet); a password is generated when unset. */
  INIT_ADMIN_USER: Type.String({ minLength: 1, default: 'admin' }),
  INIT_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  /** How often flags past their type's expected lifetime are marked potentially stale; 0 = never. */
  STALENESS_CHECK_SECONDS: Type.Integer({ minimum: 0, default: 60 }),
  /** How often scheduled change requests that are due are applied (one instance at a time); 0 = never. */
  SCHEDULED_CHANGES_CHECK_SECONDS: Type.Integer({ minimum: 0, default: 10 }),
  /** How often release plans whose milestone's time has come move on (one instance at a time); 0 = never. */
  RELEASE_PLAN_CHECK_SECONDS: Type.Integer({ minimum: 0, default: 10 }),
  /** How often new signals are matched against action sets and their actions run (one instance at a time); 0 = never. */
  SIGNAL_ACTIONS_SECONDS: Type.Number({ minimum: 0, default: 1 }),
  /** At most this many runs of one action set per minute (a loop of signals and actions cannot run away). */
  ACTION_SET_RUNS_PER_MINUTE: Type.Integer({ minimum: 1, default: 30 }),
  /** How often integrations (addons) look for new events to deliver; 0 = never (docs/adr/0013). */
  ADDON_DELIVERY_SECONDS: Type.Number({ minimum: 0, default: 1 }),
  /**
   * Targets of outgoing requests users configure (webhooks) that are allowed although internal
   * (loopback, private, link-local...; platform/outgoing.ts): comma-separated host names,
   * addresses and CIDR ranges, such as `hooks.internal,10.1.0.0/16`. Empty (default): public
   * addresses only.
   */
  OUTGOING_ALLOWED_HOSTS: Type.String({ default: '', maxLength: 10_000 }),
  /** SDK instances not seen for this long are deleted by the retention job (Unleash: 2 days). */
  CLIENT_INSTANCE_RETENTION_HOURS: Type.Number({ exclusiveMinimum: 0, default: 48 }),
  /** Hourly flag metrics and unknown flag names older than this are deleted (Unleash: 48 hours). */
  METRICS_RETENTION_HOURS: Type.Number({ exclusiveMinimum: 0, default: 48 }),
  /**
   * SDK metrics are summed in memory and written once per this many ms (one transaction and one
   * change-version move, whatever the number of SDKs; Unleash also writes every 5 s); 0 = each
   * report before its answer.
   */
  METRICS_BATCH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 5000 }),
  /**
   * Events (the audit log) older than this many days are deleted by the retention job, except the
   * newest; 0 = keep them all (the default, as Unleash).
   */
  EVENT_RETENTION_DAYS: Type.Number({ minimum: 0, default: 0 }),
  /** How often the retention job runs (one instance at a time); 0 = never. */
  RETENTION_CHECK_SECONDS: Type.Integer({ minimum: 0, default: 600 }),
  /**
   * Origins that browsers may call the frontend API from: `*` (any, without credentials) or
   * comma-separated origins such as `https://app.example.com` (credentials allowed).
   */
  FRONTEND_CORS_ORIGINS: Type.String({
    default: '*',
    pattern: '^\\s*(\\*|https?://[^\\s,/]+)\\s*(,\\s*(\\*|https?://[^\\s,/]+)\\s*)*$',
  }),
  /**
   * Behind a reverse proxy: whose `X-Forwarded-For` to believe for the client address (the
   * frontend and client APIs' `remoteAddress`, registrations, rate limits). `false` (default):
   * nobody's; `true`: any hop's; a number: that many hops; else comma-separated proxy addresses or
   * CIDR ranges (Fastify `trustProxy`).
   */
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^\\s*(true|false|[0-9]+|[0-9A-Fa-f.:/]+(\\s*,\\s*[0-9A-Fa-f.:/]+)*)\\s*$',
  }),
  /** Concurrent SSE streams (`/api/client/streaming`) one instance serves; more get a 503. */
  STREAMING_MAX_CONNECTIONS: Type.Integer({ minimum: 0, default: 1000 }),
  /** Interval of the SSE keep-alive comment, in ms (the Node SDK drops a stream silent for 60 s). */
  STREAMING_KEEPALIVE_MS: Type.Integer({ minimum: 10, maximum: 55_000, default: 30_000 }),
  /** Revisions with changes the delta API keeps per environment; older cursors get a hydration. */
  DELTA_RING_SIZE: Type.Integer({ minimum: 1, maximum: 100_000, default: 100 }),
  /**
   * Edge mode (src/edge/): the upstream service's root URL (this service or Unleash). Set, the
   * program runs as a stateless replica without a database, serving the SDK APIs from memory.
   */
  UPSTREAM_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Edge mode: client tokens (comma-separated) whose environments and projects the edge serves. */
  UPSTREAM_TOKENS: Type.Optional(Type.String()),
  /** Edge mode: how often the configuration is fetched again, in seconds (a safety net with streaming). */
  EDGE_REFRESH_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 15 }),
  /** Edge mode: follow the upstream's `/api/client/streaming` and fetch at once on each change. */
  EDGE_STREAMING: Type.Boolean({ default: true }),
  /** Edge mode: how often collected SDK metrics and registrations go upstream, in seconds. */
  EDGE_METRICS_SECONDS: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  /**
   * Edge mode: a folder where the replica keeps its last configuration, to serve it when restarted
   * while the upstream is away (src/edge/edge.backup.ts). Unset: nothing is written.
   */
  EDGE_BACKUP_FOLDER: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Edge mode: frontend tokens served without asking the upstream (comma-separated; Unleash's token
   * form, or `secret@environment` for all projects), as Unleash Edge's PRETRUSTED_TOKENS.
   */
  EDGE_PRETRUSTED_TOKENS: Type.Optional(Type.String()),
  /**
   * Offline edge mode (Unleash Edge's `offline`): serve the flags of this file (a client-features
   * document, or `{"flag": {"enabled": true, "variant": "name"}}`) to the listed tokens, with no
   * upstream (src/edge/edge.offline.ts).
   */
  EDGE_BOOTSTRAP_FILE: Type.Optional(Type.String({ minLength: 1 })),
  /** Offline edge mode: the client (backend) tokens served, comma-separated. */
  EDGE_CLIENT_TOKENS: Type.Optional(Type.String()),
  /** Offline edge mode: the frontend tokens served, comma-separated. */
  EDGE_FRONTEND_TOKENS: Type.Optional(Type.String()),
  /** Offline edge mode: how often the bootstrap file is read again, in seconds; 0: never. */
  EDGE_RELOAD_SECONDS: Type.Number({ minimum: 0, default: 0 }),
  /** Edge mode: how long the upstream's word on an SDK token holds before it is asked again, in seconds. */
  EDGE_TOKEN_REVALIDATION_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 86_400, default: 60 }),
  /** Edge mode: leave out `/api/frontend/all` and `/api/proxy/all` (every flag, disabled ones too). */
  EDGE_DISABLE_ALL_ENDPOINT: Type.Boolean({ default: false }),
  /** Edge mode: a path prefix every route is served under (`/edge`: `/edge/api/client/features`). */
  EDGE_BASE_PATH: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)+/?$' })),
  /**
   * How often each instance asks the database for configuration changes it was not told of. Changes
   * arrive at once by NOTIFY (PostgreSQL) or in process (embedded); the poll covers notifications
   * lost while the database was away, in ms.
   */
  CONFIGURATION_POLL_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 1000 }),
  /** Development aid: every admin read served from memory is checked against a fresh one. */
  READ_CACHE_VERIFY: Type.Boolean({ default: false }),
});

export type Config = Static<typeof EnvSchema>;

/**
 * Unleash Edge's names for the settings edge mode shares with it (issue 50: an operator swaps the
 * Edge container for this one and keeps its environment). The service's own name wins when both
 * are set.
 */
export const EDGE_NAMES: Readonly<Record<string, keyof Config>> = {
  TOKENS: 'UPSTREAM_TOKENS',
  FEATURES_REFRESH_INTERVAL_SECONDS: 'EDGE_REFRESH_SECONDS',
  METRICS_INTERVAL_SECONDS: 'EDGE_METRICS_SECONDS',
  INTERFACE: 'HOST',
  CORS_ORIGIN: 'FRONTEND_CORS_ORIGINS',
  BACKUP_FOLDER: 'EDGE_BACKUP_FOLDER',
  PRETRUSTED_TOKENS: 'EDGE_PRETRUSTED_TOKENS',
  BASE_PATH: 'EDGE_BASE_PATH',
  TOKEN_REVALIDATION_INTERVAL_SECONDS: 'EDGE_TOKEN_REVALIDATION_SECONDS',
  DISABLE_ALL_ENDPOINT: 'EDGE_DISABLE_ALL_ENDPOINT',
  BOOTSTRAP_FILE: 'EDGE_BOOTSTRAP_FILE',
  CLIENT_TOKENS: 'EDGE_CLIENT_TOKENS',
  FRONTEND_TOKENS: 'EDGE_FRONTEND_TOKENS',
  RELOAD_INTERVAL: 'EDGE_RELOAD_SECONDS',
};

/**
 * Whether the environment asks for edge mode, so that Unleash Edge's names count: an upstream, or
 * a bootstrap file (ours; or Edge's offline pair, BOOTSTRAP_FILE with CLIENT_TOKENS).
 */
const edgeModeAsked = (given: Record<string, string | undefined>) =>
  given.UPSTREAM_URL !== undefined ||
  given.EDGE_BOOTSTRAP_FILE !== undefined ||
  (given.BOOTSTRAP_FILE !== undefined && given.CLIENT_TOKENS !== undefined);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const raw = { ...given };
  if (edgeModeAsked(given)) {
    for (const [edgeName, own] of Object.entries(EDGE_NAMES)) {
      const value = given[edgeName];
      if (value !== undefined && given[own] === undefined) raw[own] = value;
    }
    // Edge's TRUST_PROXY=true with PROXY_TRUSTED_SERVERS trusts those servers only: ours names them.
    if (raw.TRUST_PROXY?.trim() === 'true' && given.PROXY_TRUSTED_SERVERS !== undefined) {
      raw.TRUST_PROXY = given.PROXY_TRUSTED_SERVERS;
    }
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw));
  const errors = [...Value.Errors(EnvSchema, withDefaults)];
  if (errors.length > 0) {
    const lines = errors.map((e) => `${e.instancePath.slice(1) || 'environment'}: ${e.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const config = Value.Clean(EnvSchema, withDefaults) as Config;
  if (config.UPSTREAM_URL && config.EDGE_BOOTSTRAP_FILE) {
    throw new Error(
      'Invalid configuration:\n  EDGE_BOOTSTRAP_FILE: offline mode has no upstream; set UPSTREAM_URL or the bootstrap file, not both',
    );
  }
  try {
    parseAllowList(config.OUTGOING_ALLOWED_HOSTS);
  } catch (error) {
    throw new Error(`Invalid configuration:\n  OUTGOING_ALLOWED_HOSTS: ${(error as Error).message}`);
  }
  return config;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    LOG_LEVEL: 'silent',
    READ_CACHE_VERIFY: true,
    LOGIN_RATE_LIMIT: 1000,
    LOGIN_ACCOUNT_FAILURE_LIMIT: 1000,
    LOGIN_ADDRESS_RATE_LIMIT: 1000,
    TOKEN_CREATE_RATE_LIMIT: 1000,
    // Tests run the potential-staleness job themselves, at the clock they set.
    STALENESS_CHECK_SECONDS: 0,
    // Tests deliver to integrations themselves (deliverPending) or start the worker.
    ADDON_DELIVERY_SECONDS: 0,
    // Tests run the retention job themselves, at the clock they set.
    RETENTION_CHECK_SECONDS: 0,
    // Tests apply due scheduled change requests themselves, at the clock they set.
    SCHEDULED_CHANGES_CHECK_SECONDS: 0,
    // Tests run the release plan progression themselves (progressReleasePlans).
    RELEASE_PLAN_CHECK_SECONDS: 0,
    // Tests run the actions job themselves (runActionSets).
    SIGNAL_ACTIONS_SECONDS: 0,
    // Reports are written before their answer, so a test reads them at once.
    METRICS_BATCH_MS: 0,
    ...overrides,
  };
}

/**
 * Where people reach the service, without a trailing slash: PUBLIC_URL, else this machine's
 * address (`http://localhost:<PORT><BASE_URI_PATH>`), which works only on this machine.
 */
export function publicUrl(config: Pick<Config, 'PUBLIC_URL' | 'PORT' | 'BASE_URI_PATH'>): string {
  const base = config.PUBLIC_URL ?? `http://localhost:${config.PORT}${config.BASE_URI_PATH}`;
  return base.replace(/\/+$/, '');
}

/** `TRUST_PROXY` as Fastify's `trustProxy` option (a hop count as the function proxy-addr calls). */
export function trustProxy(
  config: Pick<Config, 'TRUST_PROXY'>,
): boolean | string | ((address: string, hop: number) => boolean) {
  const value = config.TRUST_PROXY.trim();
  if (value === 'true' || value === 'false') return value === 'true';
  if (!/^[0-9]+$/.test(value)) return value;
  const hops = Number(value);
  return (_address, hop) => hop < hops;
}
