import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { instanceId, instanceStatistics } from './statistics.store.js';
import { SERVICE_VERSION } from './ui-config.service.js';

/** Counts over the whole instance, as Unleash's instance statistics (open-source fields). */
export async function getStatistics(deps: Deps) {
  const db = deps.database.db;
  const now = deps.now();
  const [id, r] = await Promise.all([instanceId(db), instanceStatistics(db, now)]);
  const stats = {
    instanceId: id,
    timestamp: now.toISOString(),
    versionOSS: SERVICE_VERSION,
    users: r.users,
    activeUsers: { last7: r.active_7, last30: r.active_30, last90: r.active_90 },
    productionChanges: { last30: r.prod_30, last60: r.prod_60, last90: r.prod_90 },
    featureToggles: r.flags,
    projects: r.projects,
    contextFields: r.context_fields,
    roles: r.roles,
    groups: r.groups,
    environments: r.environments,
    segments: r.segments,
    strategies: r.strategies,
    SAMLenabled: false,
    OIDCenabled: false,
    clientApps: [
      { range: '7d', count: r.apps_7 },
      { range: '30d', count: r.apps_30 },
      { range: 'allTime', count: r.apps_all },
    ],
    featureExports: r.exports,
    featureImports: r.imports,
    apiTokens: { admin: r.tokens_admin, client: r.tokens_client, frontend: r.tokens_frontend },
    maxEnvironmentStrategies: r.max_env_strategies,
    maxConstraints: r.max_constraints,
    maxConstraintValues: r.max_constraint_values,
  };
  return { ...stats, sum: createHash('sha256').update(JSON.stringify(stats)).digest('hex') };
}

const quote = (value: unknown) => `"${String(value).replaceAll('"', '""')}"`;

/** The same statistics as one CSV header line and one value line (nested values as JSON). */
export async function getStatisticsCsv(deps: Deps): Promise<string> {
  const stats = await getStatistics(deps);
  const entries = Object.entries(stats);
  const value = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : v);
  return `${entries.map(([k]) => quote(k)).join(',')}\n${entries.map(([, v]) => quote(value(v))).join(',')}\n`;
}
