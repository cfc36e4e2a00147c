import type { Deps } from '../../deps.js';
import { notFound } from '../../platform/http/errors.js';
import { pageNumber } from './applications.service.js';
import { isOutdatedSdk } from './applications.versions.js';
import type { ProjectApplicationsInput } from './usage.schemas.js';
import * as store from './usage.store.js';

/** Instances count as current for 24 hours, as in the application overview. */
const INSTANCE_WINDOW_MS = 24 * 3_600_000;

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

export async function environmentInstances(deps: Deps, appName: string, environment: string) {
  const since = new Date(deps.now().getTime() - INSTANCE_WINDOW_MS);
  const rows = await store.environmentInstances(deps.database.db, appName, environment, since);
  return { instances: rows.map((r) => ({ ...r, lastSeen: new Date(r.lastSeen).toISOString() })) };
}

async function existingProject(deps: Deps, projectId: string) {
  if (!(await store.projectExists(deps.database.db, projectId))) {
    throw notFound(`Could not find project with id "${projectId}".`);
  }
}

/** SDK versions below Unleash's minimum, each with the applications running it (all or a project's). */
export async function outdatedSdks(deps: Deps, projectId?: string) {
  if (projectId !== undefined) await existingProject(deps, projectId);
  const rows = await store.applicationsBySdk(deps.database.db, projectId);
  return { sdks: rows.filter((r) => isOutdatedSdk(r.sdkVersion)) };
}

/** `name:version` as Unleash splits it: the name before the first colon, the rest the version. */
function splitSdk(sdkVersion: string): [string, string] {
  const colon = sdkVersion.indexOf(':');
  return colon < 0 ? [sdkVersion, ''] : [sdkVersion.slice(0, colon), sdkVersion.slice(colon + 1)];
}

export async function projectApplications(deps: Deps, projectId: string, q: ProjectApplicationsInput) {
  await existingProject(deps, projectId);
  const rows = await store.projectApplications(deps.database.db, {
    project: projectId,
    ...(q.query !== undefined && q.query !== '' && { query: q.query }),
    offset: pageNumber(q.offset, 0, 0, 'offset'),
    limit: pageNumber(q.limit, 50, 1, 'limit'),
    sortOrder: q.sortOrder ?? 'asc',
  });
  type App = { environments: string[]; instances: string[]; sdks: Map<string, string[]> };
  const apps = new Map<string, App>();
  for (const r of rows) {
    if (r.appName === null || r.environment === null) continue;
    const app: App = apps.get(r.appName) ?? { environments: [], instances: [], sdks: new Map() };
    app.environments.push(r.environment);
    if (r.instanceId !== null) app.instances.push(r.instanceId);
    if (r.sdkVersion !== null) {
      const [name, version] = splitSdk(r.sdkVersion);
      app.sdks.set(name, [...(app.sdks.get(name) ?? []), version]);
    }
    apps.set(r.appName, app);
  }
  return {
    total: rows[0]?.total ?? 0,
    applications: [...apps].map(([name, app]) => ({
      name,
      environments: sorted(app.environments),
      instances: sorted(app.instances),
      sdks: [...app.sdks]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([sdk, versions]) => ({ name: sdk, versions: sorted(versions) })),
    })),
  };
}
