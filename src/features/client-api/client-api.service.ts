import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { ConfigurationCache } from '../snapshot/index.js';
import { buildClientPayload, type ClientPayload, supportsSegments } from './client-api.payload.js';
import { upsertRegistration } from './client-api.store.js';
import { metricsBatch } from './metrics.batch.service.js';

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
      seenAt: deps.now(),
    }),
  );
}

/**
 * Adds a metrics bucket to the app's batch (metrics.batch.service.ts), which writes the counters
 * and last-seen times of all SDKs in one transaction per interval.
 */
export async function recordMetrics(
  deps: Deps,
  principal: Principal,
  body: {
    appName: string;
    instanceId?: string;
    bucket: {
      start: string;
      toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }>;
    };
  },
  clientIp?: string,
  /** `frontend` for browser and mobile SDKs (frontend API); backend SDKs leave it unset. */
  sdkType: 'frontend' | null = null,
) {
  await metricsBatch(deps).add({
    appName: body.appName,
    environment: scopeOf(principal).environment,
    ...(body.instanceId !== undefined && { instanceId: body.instanceId }),
    ...(clientIp !== undefined && { clientIp }),
    sdkType,
    bucket: body.bucket,
  });
}
