import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import {
  type Registration,
  type SdkReporting,
  type SdkType,
  sdkScope,
  type UsageReport,
} from '../client-api/index.js';
import { metricsBatch } from './metrics.batch.service.js';

const scopeOf = sdkScope;

export async function registerClient(
  deps: Deps,
  principal: Principal,
  body: Registration,
  clientIp: string,
  sdkType: SdkType = null,
) {
  // Application and instance together or not at all, with the next batch write (one transaction
  // for all SDKs' reports of an interval; written before the answer when METRICS_BATCH_MS is 0).
  await metricsBatch(deps).register({
    appName: body.appName,
    instanceId: body.instanceId,
    environment: scopeOf(principal).environment,
    sdkVersion: body.sdkVersion ?? null,
    sdkType,
    strategies: body.strategies ?? [],
    clientIp,
    seenAt: deps.now(),
  });
}

/**
 * Adds a metrics bucket to the app's batch (metrics.batch.service.ts), which writes the counters
 * and last-seen times of all SDKs in one transaction per interval.
 */
export async function recordMetrics(
  deps: Deps,
  principal: Principal,
  body: UsageReport,
  clientIp?: string,
  sdkType: SdkType = null,
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

/** What SDKs report, stored in this service's database; `close` writes the pending batch. */
export function databaseReporting(
  deps: Deps,
  log: { error: (obj: unknown, msg: string) => void },
): SdkReporting & { close(): Promise<void> } {
  // Made now, with the app's logger: the batch reports its failed writes there.
  const batch = metricsBatch(deps, log);
  return {
    register: (principal, body, clientIp, sdkType) =>
      registerClient(deps, principal, body, clientIp, sdkType),
    metrics: (principal, body, clientIp, sdkType) => recordMetrics(deps, principal, body, clientIp, sdkType),
    close: () => batch.close(),
  };
}
