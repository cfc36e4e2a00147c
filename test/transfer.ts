import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './harness.js';

/** Helpers of the export/import tests (src/features/transfer): requests as a client sends them. */
export function transfer(t: TestApp) {
  const ok = async (res: Promise<LightMyRequestResponse>, status: number, what: string) => {
    const answer = await res;
    if (answer.statusCode !== status) throw new Error(`${what} ${answer.statusCode}: ${answer.body}`);
    return answer;
  };
  const post = (url: string, payload: unknown, headers: Record<string, string | undefined> = {}) =>
    t.send('POST', url, payload, headers);
  return {
    post,
    exportRaw: (body: unknown, headers: Record<string, string | undefined> = {}) =>
      post('/api/admin/features-batch/export', body, headers),
    export: async (body: Record<string, unknown>) =>
      (await ok(post('/api/admin/features-batch/export', body), 200, 'export')).json() as ExportDocument,
    validate: (body: unknown, headers: Record<string, string | undefined> = {}) =>
      post('/api/admin/features-batch/validate', body, headers),
    import: (body: unknown, headers: Record<string, string | undefined> = {}) =>
      post('/api/admin/features-batch/import', body, headers),
    /** Everything an import can change, for before/after comparisons: every project's flags, both environments. */
    snapshot: async () => {
      const environments = ['development', 'production'];
      const parts = await Promise.all(
        environments.map(async (environment) => {
          const res = await post('/api/admin/features-batch/export', { environment, features: [] });
          return res.json() as ExportDocument;
        }),
      );
      const contextFields = (await t.send('GET', '/api/admin/context')).json();
      const tagTypes = (await t.send('GET', '/api/admin/tag-types')).json();
      const tags = (await t.send('GET', '/api/admin/tags')).json();
      const archive = (await t.send('GET', '/api/admin/archive/features')).json();
      return { parts, contextFields, tagTypes, tags, archive };
    },
    /** Event types stored after the given id, oldest first. */
    eventsAfter: async (id: number) =>
      (await t.database.session((run) =>
        run('SELECT type, feature_name, data, pre_data, tags FROM events WHERE id > $1 ORDER BY id', [id]),
      )) as { type: string; feature_name: string | null; data: unknown; pre_data: unknown; tags: unknown }[],
    lastEventId: async () =>
      Number(
        (await t.database.session((run) => run('SELECT coalesce(max(id), 0)::int AS id FROM events')))[0]?.id,
      ),
    ok,
  };
}

export interface ExportDocument {
  features: { name: string; project: string; archived: boolean; [key: string]: unknown }[];
  featureStrategies: {
    id: string;
    featureName: string;
    name: string;
    segments: number[];
    [key: string]: unknown;
  }[];
  featureEnvironments: {
    featureName: string;
    enabled: boolean;
    variants: unknown[];
    [key: string]: unknown;
  }[];
  contextFields: { name: string; [key: string]: unknown }[];
  featureTags: { featureName: string; tagType: string; tagValue: string }[];
  segments: { id: number; name: string }[];
  tagTypes: { name: string; [key: string]: unknown }[];
  dependencies: {
    feature: string;
    dependencies: { feature: string; enabled: boolean; variants?: string[] }[];
  }[];
  links: unknown[];
}

/**
 * A configuration with something of every kind an export carries, built through the API in the
 * `default` project: a custom context field and tag type, a segment, strategies with constraints,
 * segments and variants, flag variants with overrides, tags, a stale flag and a dependency.
 * Returns the flag names.
 */
export async function buildConfiguration(t: TestApp, prefix: string) {
  const { ok } = transfer(t);
  const send = (method: string, url: string, body?: unknown, status = 200) =>
    ok(t.send(method, url, body), status, `${method} ${url}`);
  const env = (flag: string, environment = 'development') =>
    `/api/admin/projects/default/features/${flag}/environments/${environment}`;
  const names = {
    checkout: `${prefix}-checkout`,
    kill: `${prefix}-kill`,
    child: `${prefix}-child`,
    experiment: `${prefix}-experiment`,
  };
  await send(
    'POST',
    '/api/admin/context',
    {
      name: `${prefix}-tier`,
      description: 'Customer tier',
      sortOrder: 5,
      stickiness: true,
      legalValues: [{ value: 'gold', description: 'Pays most' }, { value: 'silver' }],
    },
    201,
  );
  await send(
    'POST',
    '/api/admin/tag-types',
    { name: `${prefix}-team`, description: 'Owning team', color: '#123456' },
    201,
  );
  const segment = (
    await send(
      'POST',
      '/api/admin/segments',
      { name: `${prefix}-beta`, constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] },
      201,
    )
  ).json() as { id: number };
  await send('POST', '/api/admin/projects/default/features', {
    name: names.checkout,
    description: 'New checkout',
    impressionData: true,
    tags: [
      { type: 'simple', value: `${prefix}-web` },
      { type: `${prefix}-team`, value: 'payments' },
    ],
  });
  await send('POST', `${env(names.checkout)}/strategies`, {
    name: 'flexibleRollout',
    title: 'Half of gold',
    parameters: { rollout: '50', stickiness: `${prefix}-tier`, groupId: 'checkout-group' },
    constraints: [
      { contextName: `${prefix}-tier`, operator: 'IN', values: ['gold'] },
      { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2025-01-01T00:00:00Z', inverted: true },
    ],
    segments: [segment.id],
    variants: [
      {
        name: 'blue',
        weight: 500,
        weightType: 'variable',
        stickiness: 'default',
        payload: { type: 'string', value: 'b' },
      },
      { name: 'red', weight: 200, weightType: 'fix', stickiness: 'default' },
    ],
  });
  await send('POST', `${env(names.checkout)}/strategies`, {
    name: 'default',
    title: 'Everyone else',
    disabled: true,
    parameters: {},
  });
  await send('PUT', `${env(names.checkout)}/variants`, [
    {
      name: 'a',
      weight: 1000,
      stickiness: 'userId',
      payload: { type: 'json', value: '{"x":1}' },
      overrides: [{ contextName: 'appName', values: ['web'] }],
    },
    { name: 'b', weight: 0 },
  ]);
  await send('POST', `${env(names.checkout)}/on`);
  // Production has its own configuration, which a development export leaves out.
  await send('POST', `${env(names.checkout, 'production')}/strategies`, { name: 'default' });

  await send('POST', '/api/admin/projects/default/features', { name: names.kill, type: 'kill-switch' });
  await send('PUT', `/api/admin/projects/default/features/${names.kill}`, { stale: true });

  await send('POST', '/api/admin/projects/default/features', { name: names.experiment, type: 'experiment' });
  await send('POST', `${env(names.experiment)}/strategies`, {
    name: 'flexibleRollout',
    parameters: { rollout: '10' },
    constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GT', value: '1.2.3' }],
  });

  await send('POST', '/api/admin/projects/default/features', { name: names.child });
  await send('POST', `/api/admin/projects/default/features/${names.child}/dependencies`, {
    feature: names.checkout,
    variants: ['a'],
  });
  await send('POST', `${env(names.child)}/on`);
  return names;
}
