import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import {
  deleteApplication as deleteApplicationRows,
  lockApplication,
  upsertApplication,
} from '../sdk-usage/index.js';
import type {
  ApplicationListInput,
  ApplicationOverview,
  EditApplicationInput,
} from './applications.schemas.js';
import * as store from './applications.store.js';
import { applicationUrl } from './applications.validate.js';
import { isOutdatedSdk, LEGACY_STRATEGIES } from './applications.versions.js';

const HOUR = 3_600_000;
/** Metrics count for 48 hours (Unleash deletes older hourly rows), instances for 24. */
const METRICS_WINDOW = 48 * HOUR;
const INSTANCE_WINDOW = 24 * HOUR;

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

const unknownApp = (appName: string) => notFound(`Could not find appName=${appName}`);

/** Spec endpoint 10: how the application uses the service, and what may be wrong with it. */
export async function applicationOverview(deps: Deps, appName: string): Promise<ApplicationOverview> {
  const db = deps.database.db;
  const now = deps.now().getTime();
  const [seen, app, instances, flags] = await Promise.all([
    store.applicationSeen(db, appName),
    store.findApplication(db, appName),
    store.instancesOf(db, appName, new Date(now - INSTANCE_WINDOW)),
    store.reportedFlags(db, appName, new Date(now - METRICS_WINDOW)),
  ]);
  if (!seen) throw unknownApp(appName);

  const registered = app?.strategies ?? [];
  const existing = new Set((await store.strategyDefinitions(db, registered)).map((s) => s.name));
  const missingStrategies = sorted(registered.filter((s) => !existing.has(s) && !LEGACY_STRATEGIES.has(s)));

  const environments = sorted([...instances.map((i) => i.environment), ...flags.map((f) => f.environment)]);
  return {
    projects: sorted(flags.flatMap((f) => (f.project === null ? [] : [f.project]))),
    featureCount: new Set(flags.flatMap((f) => (f.project === null ? [] : [f.featureName]))).size,
    environments: environments.map((name) => {
      const here = instances.filter((i) => i.environment === name);
      const versions = (type: 'frontend' | 'backend' | 'any') =>
        sorted(
          here.flatMap((i) =>
            i.sdkVersion !== null && (type === 'any' || (i.sdkType === 'frontend') === (type === 'frontend'))
              ? [i.sdkVersion]
              : [],
          ),
        );
      const sdks = versions('any');
      const lastSeen = here.reduce<Date | null>(
        (max, i) => (max === null || new Date(i.lastSeen) > max ? new Date(i.lastSeen) : max),
        null,
      );
      return {
        name,
        instanceCount: new Set(here.map((i) => i.instanceId)).size,
        sdks,
        frontendSdks: versions('frontend'),
        backendSdks: versions('backend'),
        lastSeen: isoOrNull(lastSeen),
        issues: {
          missingFeatures: sorted(
            flags.filter((f) => f.environment === name && f.project === null).map((f) => f.featureName),
          ),
          outdatedSdks: sdks.filter(isOutdatedSdk),
        },
      };
    }),
    issues: { missingStrategies },
  };
}

function toListItem(r: store.ApplicationRow, usage: { project: string; environment: string }[]) {
  const projects = new Map<string, string[]>();
  for (const u of usage) projects.set(u.project, [...(projects.get(u.project) ?? []), u.environment]);
  return {
    appName: r.appName,
    description: r.description,
    url: r.url,
    color: r.color,
    icon: r.icon,
    createdAt: iso(r.createdAt),
    updatedAt: isoOrNull(r.updatedAt),
    createdBy: r.createdBy,
    strategies: r.strategies,
    usage: [...projects].map(([project, environments]) => ({ project, environments: sorted(environments) })),
  };
}

export function pageNumber(value: string | undefined, fallback: number, min: number, path: string) {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (n < min || n > (path === 'limit' ? 1000 : Number.MAX_SAFE_INTEGER)) {
    throw invalid(`${path} must be an integer from ${min}${path === 'limit' ? ' to 1000' : ''}.`, [
      { path: `/querystring/${path}`, message: `${path} must be an integer from ${min}.` },
    ]);
  }
  return n;
}

export async function listApplications(deps: Deps, q: ApplicationListInput) {
  const db = deps.database.db;
  const { total, rows } = await store.listApplications(db, {
    ...(q.query !== undefined && q.query !== '' && { query: q.query }),
    offset: pageNumber(q.offset, 0, 0, 'offset'),
    limit: pageNumber(q.limit, 1000, 1, 'limit'),
    sortBy: q.sortBy ?? 'appName',
    sortOrder: q.sortOrder ?? 'asc',
  });
  const usage = await store.usageOf(
    db,
    rows.map((r) => r.appName),
    new Date(deps.now().getTime() - METRICS_WINDOW),
  );
  return {
    applications: rows.map((r) =>
      toListItem(
        r,
        usage.filter((u) => u.appName === r.appName),
      ),
    ),
    total,
  };
}

export async function getApplication(deps: Deps, appName: string) {
  const db = deps.database.db;
  const app = await store.findApplication(db, appName);
  if (!app) throw notFound(`Could not find application with appName=${appName}`);
  const since = new Date(deps.now().getTime() - METRICS_WINDOW);
  const [strategies, instances, flags] = await Promise.all([
    store.strategyDefinitions(db, app.strategies),
    store.instancesOf(db, appName),
    store.seenFlags(db, appName, since),
  ]);
  return {
    appName: app.appName,
    createdAt: iso(app.createdAt),
    description: app.description,
    url: app.url,
    color: app.color,
    icon: app.icon,
    strategies: strategies.map((s) => ({
      title: s.title,
      name: s.name,
      displayName: s.title,
      description: s.description,
      editable: !s.builtIn,
      deprecated: s.deprecated,
      parameters: json(s.parameters),
    })),
    instances: instances.map((i) => ({
      appName: i.appName,
      instanceId: i.instanceId,
      sdkVersion: i.sdkVersion,
      sdkType: i.sdkType === 'frontend' ? ('frontend' as const) : ('backend' as const),
      clientIp: i.clientIp,
      lastSeen: iso(i.lastSeen),
      createdAt: iso(i.createdAt),
      environment: i.environment,
    })),
    seenToggles: flags.map((f) => ({ ...f, createdAt: iso(f.createdAt) })),
    links: { self: `/api/applications/${appName}` },
  };
}

/** Creates or edits the application and records `application-created`, as Unleash does for both. */
export async function editApplication(
  deps: Deps,
  appName: string,
  input: EditApplicationInput,
  by: Principal,
) {
  const edit = {
    ...(input.description !== undefined && { description: input.description }),
    ...(input.url !== undefined && { url: applicationUrl(input.url) }),
    ...(input.color !== undefined && { color: input.color }),
    ...(input.icon !== undefined && { icon: input.icon }),
  };
  await transaction(deps.database.db, async (tx) => {
    const before = await lockApplication(tx, appName);
    const after = await upsertApplication(tx, appName, edit, by.name);
    await appendEvent(tx, {
      type: 'application-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: after,
      ...(before && { preData: before }),
    });
  });
}

/** Deletes the application and its instances, recording `application-deleted`; 404 when unknown. */
export async function deleteApplication(deps: Deps, appName: string, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await lockApplication(tx, appName);
    if (!before) throw notFound(`Could not find application with appName=${appName}`);
    await deleteApplicationRows(tx, appName);
    await appendEvent(tx, {
      type: 'application-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: before,
    });
  });
}

function variantsOf(v: store.MetricsRow['variants']): Record<string, number> {
  return v === null ? {} : json(v);
}

function metricsView(r: store.MetricsRow) {
  return {
    featureName: r.featureName,
    appName: r.appName,
    environment: r.environment,
    timestamp: iso(r.timestamp),
    yes: Number(r.yes),
    no: Number(r.no),
    variants: variantsOf(r.variants),
  };
}

/** Unleash's feature usage summary: the last hours' rows, totals per environment, applications. */
export async function featureUsage(deps: Deps, name: string) {
  const now = deps.now().getTime();
  const rows = await store.flagMetrics(deps.database.db, name, new Date(now - METRICS_WINDOW));
  const lastHour = now - (now % HOUR) - HOUR;
  const totals = new Map<
    string,
    { environment: string; yes: number; no: number; variants: Record<string, number> }
  >();
  for (const r of rows) {
    const t = totals.get(r.environment) ?? { environment: r.environment, yes: 0, no: 0, variants: {} };
    t.yes += Number(r.yes);
    t.no += Number(r.no);
    for (const [variant, count] of Object.entries(variantsOf(r.variants))) {
      t.variants[variant] = (t.variants[variant] ?? 0) + count;
    }
    totals.set(r.environment, t);
  }
  return {
    version: 1,
    maturity: 'stable',
    featureName: name,
    lastHourUsage: rows.filter((r) => new Date(r.timestamp).getTime() >= lastHour).map(metricsView),
    totalUsage: [...totals.values()].sort((a, b) => a.environment.localeCompare(b.environment)),
    seenApplications: sorted(rows.map((r) => r.appName)),
  };
}

export async function rawFeatureMetrics(deps: Deps, name: string) {
  const rows = await store.flagMetrics(
    deps.database.db,
    name,
    new Date(deps.now().getTime() - METRICS_WINDOW),
  );
  return { version: 1, maturity: 'stable', data: rows.map(metricsView) };
}

export async function unknownFlags(deps: Deps) {
  const rows = await store.unknownFlags(deps.database.db, new Date(deps.now().getTime() - METRICS_WINDOW));
  const byName = new Map<
    string,
    { name: string; lastSeenAt: string; reports: Map<string, { environment: string; seenAt: string }[]> }
  >();
  for (const r of rows) {
    const seenAt = iso(r.seenAt);
    const entry = byName.get(r.name) ?? { name: r.name, lastSeenAt: seenAt, reports: new Map() };
    if (seenAt > entry.lastSeenAt) entry.lastSeenAt = seenAt;
    entry.reports.set(r.appName, [
      ...(entry.reports.get(r.appName) ?? []),
      { environment: r.environment, seenAt },
    ]);
    byName.set(r.name, entry);
  }
  return {
    unknownFlags: [...byName.values()].map((e) => ({
      name: e.name,
      lastSeenAt: e.lastSeenAt,
      reports: [...e.reports].map(([appName, environments]) => ({ appName, environments })),
    })),
  };
}
