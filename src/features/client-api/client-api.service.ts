import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { noteUnloggedChange } from '../events/index.js';
import { markFlagsSeen } from '../flags/index.js';
import type { ConfigurationCache } from '../snapshot/index.js';
import { buildClientPayload, type ClientPayload, supportsSegments } from './client-api.payload.js';
import { addMetrics, upsertRegistration } from './client-api.store.js';
import { addVariantMetrics, existingFlagNames, recordUnknownFlags } from './metrics.store.js';

/**
 * How old the configuration an SDK is served may be when newer changes are known: under a stream
 * of writes the payload is rebuilt at most this often (a change reaches SDKs within about this,
 * plus the time of one rebuild).
 */
const SDK_STALENESS_MS = 200;

function scopeOf(principal: Principal) {
  return principal.scope ?? { projects: ['*'], environment: 'default' };
}

/**
 * The token's payload from the in-memory configuration: no database query per request; built and
 * serialised once per scope and segment mode, and again only when a change touches the token's
 * environment.
 */
export async function clientFeatures(
  configuration: ConfigurationCache,
  principal: Principal,
  specHeader: string | undefined,
): Promise<ClientPayload> {
  const config = await configuration.get({ within: SDK_STALENESS_MS });
  const scope = scopeOf(principal);
  const inline = !supportsSegments(specHeader);
  const key = `client|${scope.environment}|${[...scope.projects].sort().join(',')}|${inline}`;
  return config.environment(scope.environment).memo(key, () => buildClientPayload(config, scope, inline));
}

export async function clientFeature(
  configuration: ConfigurationCache,
  principal: Principal,
  specHeader: string | undefined,
  name: string,
) {
  const payload = await clientFeatures(configuration, principal, specHeader);
  const flag = payload.features.find((f) => f.name === name);
  if (!flag) throw notFound(`Could not find feature flag with name ${name}`);
  return flag;
}

export async function registerClient(
  deps: Deps,
  principal: Principal,
  body: { appName: string; instanceId: string; sdkVersion?: string; strategies?: string[] },
  clientIp: string,
  /** `frontend` for browser and mobile SDKs (frontend API); backend SDKs leave it unset. */
  sdkType: 'frontend' | null = null,
) {
  // Application and instance together or not at all.
  await transaction(deps.database.db, (tx) =>
    upsertRegistration(tx, {
      appName: body.appName,
      instanceId: body.instanceId,
      environment: scopeOf(principal).environment,
      sdkVersion: body.sdkVersion ?? null,
      sdkType,
      strategies: body.strategies ?? [],
      clientIp,
    }),
  );
}

export async function recordMetrics(
  deps: Deps,
  principal: Principal,
  body: {
    appName: string;
    bucket: {
      start: string;
      toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }>;
    };
  },
) {
  const hour = new Date(body.bucket.start);
  hour.setUTCMinutes(0, 0, 0);
  const toggles = Object.entries(body.bucket.toggles).slice(0, 10_000);
  const counts = toggles.map(([flag, c]) => ({ flag, yes: c.yes, no: c.no }));
  const variants = toggles.flatMap(([flag, c]) =>
    Object.entries(c.variants ?? {})
      .slice(0, 100)
      .filter(([, count]) => count > 0)
      .map(([variant, count]) => ({ flag, variant, count })),
  );
  // Counters and last-seen times together or not at all.
  const environment = scopeOf(principal).environment;
  await transaction(deps.database.db, async (tx) => {
    await markFlagsSeen(
      tx,
      environment,
      counts.map((c) => c.flag),
    );
    // Only flags that exist are counted; unknown names are kept apart, bounded (metrics.store.ts).
    const known = await existingFlagNames(
      tx,
      counts.map((c) => c.flag),
    );
    const appName = body.appName;
    await addMetrics(tx, { appName, environment, hour, counts: counts.filter((c) => known.has(c.flag)) });
    await addVariantMetrics(tx, {
      appName,
      environment,
      hour,
      counts: variants.filter((v) => known.has(v.flag)),
    });
    const unknown = counts.filter((c) => !known.has(c.flag)).map((c) => c.flag);
    await recordUnknownFlags(tx, { appName, environment, names: unknown });
  });
  // Flags' last-seen times show in admin reads: move the change version (after the commit).
  if (counts.length > 0) await noteUnloggedChange(deps.database.db);
}
