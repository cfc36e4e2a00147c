import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { Configuration, ConfigurationSource } from '../snapshot/index.js';
import {
  buildClientPayload,
  type ClientPayload,
  clientFlagIn,
  supportsSegments,
} from './client-api.payload.js';
import {
  projectsKey,
  type Registration,
  type SdkReporting,
  sdkScope,
  type UsageReport,
} from './sdk-ports.js';

/**
 * How old the configuration an SDK is served may be when newer changes are known: under a stream
 * of writes the payload is rebuilt at most this often (a change reaches SDKs within about this,
 * plus the time of one rebuild).
 */
const SDK_STALENESS_MS = 200;

const scopeOf = sdkScope;

/** Scopes asked for lately whose payloads are made again as soon as a change arrives. */
const PREBUILT_SCOPES = 100;

interface Wanted {
  scope: { projects: string[]; environment: string };
  inline: boolean;
  gzip: boolean;
}

/**
 * A scope's keys, made once per scope object (a cached token's principal keeps its scope, so an
 * SDK request builds no string): the payload's per segment mode, and the prebuilders' per segment
 * mode and encoding.
 */
interface ScopeKeys {
  payload: Record<'plain' | 'inline', string>;
  prebuilt: Record<'plain' | 'inline', Record<'identity' | 'gzip', string>>;
}
const scopeKeys = new WeakMap<Wanted['scope'], ScopeKeys>();
const keysOf = (scope: Wanted['scope']): ScopeKeys => {
  let keys = scopeKeys.get(scope);
  if (!keys) {
    const base = `client|${scope.environment}|${projectsKey(scope.projects)}`;
    const [plain, inline] = [`${base}|false`, `${base}|true`];
    keys = {
      payload: { plain, inline },
      prebuilt: {
        plain: { identity: `${plain}|false`, gzip: `${plain}|true` },
        inline: { identity: `${inline}|false`, gzip: `${inline}|true` },
      },
    };
    scopeKeys.set(scope, keys);
  }
  return keys;
};
const keyOf = ({ scope, inline }: Wanted) => keysOf(scope).payload[inline ? 'inline' : 'plain'];
const prebuiltKeyOf = ({ scope, inline, gzip }: Wanted) =>
  keysOf(scope).prebuilt[inline ? 'inline' : 'plain'][gzip ? 'gzip' : 'identity'];

/** What a token's request asks for: its scope, its segment mode, its encoding. */
const wantedBy = (principal: Principal, specHeader: string | undefined, gzip: boolean): Wanted => ({
  scope: scopeOf(principal),
  inline: !supportsSegments(specHeader),
  gzip,
});

const payloadIn = (config: Configuration, wanted: Wanted) =>
  config
    .environment(wanted.scope.environment)
    .memo(keyOf(wanted), () => buildClientPayload(config, wanted.scope, wanted.inline));

/**
 * Makes the payloads SDKs asked for lately (and their gzip copies) as soon as the configuration
 * moves, off the request path: the first SDK to poll after a change gets a payload already made
 * and compressed. Follows the configuration only once some SDK asked (an instance without SDKs
 * pays nothing); payloads of environments a change did not touch are carried over, not rebuilt.
 */
const prebuilders = new WeakMap<ConfigurationSource, Map<string, Wanted>>();

function remember(configuration: ConfigurationSource, wanted: Wanted) {
  let scopes = prebuilders.get(configuration);
  if (!scopes) {
    const known = new Map<string, Wanted>();
    scopes = known;
    prebuilders.set(configuration, known);
    // Changes arriving faster than payloads are made (a stream of writes) coalesce: at most one
    // round per SDK_STALENESS_MS, on the newest configuration, not one per change queued ahead of
    // SDK requests (readers rebuild no more often than that either).
    let newest: Configuration | undefined;
    let lastRound = 0;
    configuration.subscribe((next) => {
      const scheduled = newest !== undefined;
      newest = next;
      if (scheduled) return;
      const wait = Math.max(0, lastRound + SDK_STALENESS_MS - performance.now());
      setTimeout(() => {
        const config = newest as Configuration;
        newest = undefined;
        lastRound = performance.now();
        for (const w of known.values()) {
          const payload = payloadIn(config, w);
          if (w.gzip) payload.gzipped();
        }
      }, wait).unref();
    });
  }
  const key = prebuiltKeyOf(wanted);
  if (scopes.has(key)) return;
  if (scopes.size >= PREBUILT_SCOPES) scopes.delete(scopes.keys().next().value as string);
  scopes.set(key, wanted);
}

/**
 * The token's payload from the in-memory configuration: no database query per request; built and
 * serialised (and compressed, `gzip`) once per scope and segment mode, and again only when a
 * change touches the token's environment, right after that change.
 */
export function clientFeatures(
  configuration: ConfigurationSource,
  principal: Principal,
  specHeader: string | undefined,
  gzip = false,
  namePrefix?: string,
): ClientPayload | Promise<ClientPayload> {
  // A name prefix (rare: an SDK's `namePrefix` option) gets its payload made for it, not kept:
  // clients choose the prefixes, so keeping them would let them fill the memory.
  if (namePrefix) {
    const wanted = wantedBy(principal, specHeader, gzip);
    const made = (config: Configuration) =>
      buildClientPayload(config, wanted.scope, wanted.inline, namePrefix);
    const config = configuration.peek(SDK_STALENESS_MS);
    return config ? made(config) : configuration.get({ within: SDK_STALENESS_MS }).then(made);
  }
  // Nearly always current: answered without a promise (see ConfigurationSource.peek).
  const current = currentClientFeatures(configuration, principal, specHeader, gzip);
  if (current) return current;
  const wanted = wantedBy(principal, specHeader, gzip);
  return configuration.get({ within: SDK_STALENESS_MS }).then((loaded) => {
    remember(configuration, wanted);
    return payloadIn(loaded, wanted);
  });
}

/**
 * What `clientFeatures` answers when the configuration in memory is current enough to answer at
 * once, else undefined (nothing is loaded).
 */
export function currentClientFeatures(
  configuration: ConfigurationSource,
  principal: Principal,
  specHeader: string | undefined,
  gzip: boolean,
): ClientPayload | undefined {
  const config = configuration.peek(SDK_STALENESS_MS);
  if (!config) return undefined;
  const wanted = wantedBy(principal, specHeader, gzip);
  remember(configuration, wanted);
  return payloadIn(config, wanted);
}

/**
 * One flag of the token's payload, from the same configuration `clientFeatures` would serve (as
 * fresh), without making the payload: a caller that follows one flag while changes stream in costs
 * that flag, not the environment's whole payload (nor its making again after every change).
 */
export async function clientFeature(
  configuration: ConfigurationSource,
  principal: Principal,
  specHeader: string | undefined,
  name: string,
) {
  const config =
    configuration.peek(SDK_STALENESS_MS) ?? (await configuration.get({ within: SDK_STALENESS_MS }));
  const flag = clientFlagIn(config, scopeOf(principal), !supportsSegments(specHeader), name);
  if (!flag) throw notFound(`Could not find feature flag with name ${name}`);
  return flag;
}

interface BulkBody {
  applications: (Registration & { environment: string })[];
  metrics: {
    featureName: string;
    appName: string;
    environment: string;
    timestamp?: string;
    yes: number;
    no: number;
    variants?: Record<string, number>;
  }[];
}

/**
 * An edge replica's batch (`/api/client/metrics/bulk`): the registrations and counts of the
 * token's environment go where SDK reports go, counts grouped into one bucket per application and
 * hour; other environments' entries are left out, as the token could not have read their flags.
 */
export async function recordBulk(
  reporting: SdkReporting,
  principal: Principal,
  body: BulkBody,
  clientIp: string,
  now: Date,
) {
  const { environment } = scopeOf(principal);
  for (const { environment: where, ...registration } of body.applications) {
    if (where === environment) await reporting.register(principal, registration, clientIp, null);
  }
  const buckets = new Map<string, UsageReport>();
  for (const metric of body.metrics) {
    if (metric.environment !== environment) continue;
    const start = metric.timestamp ?? now.toISOString();
    const key = `${metric.appName}\u0000${start}`;
    let report = buckets.get(key);
    if (!report) {
      report = { appName: metric.appName, bucket: { start, toggles: {} } };
      buckets.set(key, report);
    }
    const counts = report.bucket.toggles[metric.featureName] ?? { yes: 0, no: 0 };
    report.bucket.toggles[metric.featureName] = counts;
    counts.yes += metric.yes;
    counts.no += metric.no;
    for (const [variant, count] of Object.entries(metric.variants ?? {})) {
      counts.variants ??= {};
      counts.variants[variant] = (counts.variants[variant] ?? 0) + count;
    }
  }
  for (const report of buckets.values()) await reporting.metrics(principal, report, clientIp, null);
}
