import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let devToken: string;
let prodToken: string;
const flag = uniqueName('apps-flag');
const other = uniqueName('apps-other');

beforeAll(async () => {
  t = await startTestApp();
  const sql = configSql(t);
  await api(t).createFlag('default', { name: flag });
  await api(t).createFlag('default', { name: other });
  devToken = await sql.addToken('client', ['default'], 'development');
  prodToken = await sql.addToken('client', ['default'], 'production');
});
afterAll(() => t.close());

const register = (token: string, body: Record<string, unknown>) =>
  t.send('POST', '/api/client/register', body, { authorization: token });
const metrics = (token: string, appName: string, toggles: Record<string, unknown>, instanceId = 'i1') => {
  const start = new Date().toISOString();
  return t.send(
    'POST',
    '/api/client/metrics',
    { appName, instanceId, bucket: { start, stop: start, toggles } },
    { authorization: token },
  );
};

async function seedApp(appName: string) {
  expect(
    (
      await register(devToken, {
        appName,
        instanceId: 'i1',
        sdkVersion: 'unleash-client-node:5.0.0',
        strategies: ['default', 'flexibleRollout', 'myCustom', 'userWithId'],
      })
    ).statusCode,
  ).toBe(202);
  const strategies = ['default', 'flexibleRollout', 'myCustom', 'userWithId'];
  await register(devToken, {
    appName,
    instanceId: 'i2',
    sdkVersion: 'unleash-client-node:6.1.0',
    strategies,
  });
  await register(prodToken, { appName, instanceId: 'p1', sdkVersion: 'unleash-node-sdk:7.0.0', strategies });
  expect(
    (await metrics(devToken, appName, { [flag]: { yes: 3, no: 1 }, 'no-such-flag': { yes: 0, no: 2 } }))
      .statusCode,
  ).toBe(202);
  await metrics(prodToken, appName, { [other]: { yes: 1, no: 0, variants: { blue: 1 } } }, 'p1');
}

describe('GET /api/admin/metrics/applications/:appName/overview (spec endpoint 10)', () => {
  it('shows projects, flags, environments with instances and SDKs, and the issues', async () => {
    const appName = uniqueName('overview-app');
    await seedApp(appName);
    const res = await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      projects: ['default'],
      featureCount: 2,
      environments: [
        {
          name: 'development',
          instanceCount: 2,
          sdks: ['unleash-client-node:5.0.0', 'unleash-client-node:6.1.0'],
          frontendSdks: [],
          backendSdks: ['unleash-client-node:5.0.0', 'unleash-client-node:6.1.0'],
          lastSeen: expect.any(String),
          issues: { missingFeatures: ['no-such-flag'], outdatedSdks: ['unleash-client-node:5.0.0'] },
        },
        {
          name: 'production',
          instanceCount: 1,
          sdks: ['unleash-node-sdk:7.0.0'],
          frontendSdks: [],
          backendSdks: ['unleash-node-sdk:7.0.0'],
          lastSeen: expect.any(String),
          issues: { missingFeatures: [], outdatedSdks: [] },
        },
      ],
      issues: { missingStrategies: ['myCustom'] },
    });
    expect(Date.now() - Date.parse(body.environments[0].lastSeen)).toBeLessThan(60_000);
  });

  it('lists frontend SDKs registered through the frontend API apart', async () => {
    const appName = uniqueName('browser-app');
    const frontend = await configSql(t).addToken('frontend', ['default'], 'development');
    const reg = await t.send(
      'POST',
      '/api/frontend/client/register',
      {
        appName,
        instanceId: 'b1',
        sdkVersion: 'unleash-client-js:3.7.5',
        interval: 15000,
        started: new Date().toISOString(),
        strategies: [],
      },
      { authorization: frontend },
    );
    expect(reg.statusCode).toBe(200);
    await register(devToken, { appName, instanceId: 'n1', sdkVersion: 'unleash-client-node:6.1.0' });
    const body = (await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).json();
    expect(body.environments).toEqual([
      expect.objectContaining({
        instanceCount: 2,
        frontendSdks: ['unleash-client-js:3.7.5'],
        backendSdks: ['unleash-client-node:6.1.0'],
      }),
    ]);
  });

  it('answers 404 NotFoundError for an application never seen', async () => {
    const res = await t.send('GET', '/api/admin/metrics/applications/never-seen/overview');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ name: 'NotFoundError', message: 'Could not find appName=never-seen' });
  });

  it('counts an application that only sent metrics as seen, its reporting instance too (as Unleash)', async () => {
    const appName = uniqueName('metrics-only');
    await metrics(devToken, appName, { [flag]: { yes: 1, no: 0 } });
    const body = (await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).json();
    expect(body.environments).toEqual([
      expect.objectContaining({
        name: 'development',
        instanceCount: 1,
        sdks: [],
        lastSeen: expect.any(String),
      }),
    ]);
  });
});

describe('applications: list, details, edit, delete', () => {
  const a = `list-a-${uniqueName('x')}`;
  const b = `list-b-${uniqueName('x')}`;
  beforeAll(async () => {
    await seedApp(a);
    await register(devToken, { appName: b, instanceId: 'i1', strategies: ['default'] });
  });

  it('lists with query, sort and paging', async () => {
    const all = (await t.send('GET', '/api/admin/metrics/applications?query=LIST-')).json();
    expect(all.total).toBe(2);
    expect(all.applications.map((x: { appName: string }) => x.appName)).toEqual([a, b]);
    expect(all.applications[0]).toMatchObject({
      appName: a,
      description: null,
      strategies: ['default', 'flexibleRollout', 'myCustom', 'userWithId'],
      usage: [{ project: 'default', environments: ['development', 'production'] }],
    });
    const page = (
      await t.send('GET', '/api/admin/metrics/applications?query=list-&sortOrder=desc&limit=1&offset=0')
    ).json();
    expect(page).toMatchObject({ total: 2, applications: [{ appName: b }] });
    expect((await t.send('GET', '/api/admin/metrics/applications?limit=0')).statusCode).toBe(400);
    expect((await t.send('GET', '/api/admin/metrics/applications?limit=x')).statusCode).toBe(400);
    expect((await t.send('GET', '/api/admin/metrics/applications?sortBy=nope')).statusCode).toBe(400);
  });

  it('shows one application with strategies, instances and seen flags', async () => {
    const body = (await t.send('GET', `/api/admin/metrics/applications/${a}`)).json();
    const strategies = body.strategies.map((s: { name: string }) => s.name);
    expect(strategies).toEqual(expect.arrayContaining(['default', 'flexibleRollout']));
    expect(strategies).not.toContain('myCustom');
    expect(body.instances).toHaveLength(3);
    expect(body.instances[0]).toMatchObject({ appName: a, sdkType: 'backend', clientIp: expect.any(String) });
    expect(body.seenToggles.map((f: { name: string }) => f.name)).toEqual([flag, other].sort());
    expect(body.links).toEqual({ self: `/api/applications/${a}` });
    expect((await t.send('GET', '/api/admin/metrics/applications/nope')).statusCode).toBe(404);
  });

  it('edits the fields given and records application-created', async () => {
    const res = await t.send('POST', `/api/admin/metrics/applications/${b}`, {
      description: 'Books things',
      color: 'red',
    });
    expect(res.statusCode).toBe(202);
    await t.send('POST', `/api/admin/metrics/applications/${b}`, { url: 'https://example.com' });
    const body = (await t.send('GET', `/api/admin/metrics/applications/${b}`)).json();
    expect(body).toMatchObject({
      description: 'Books things',
      color: 'red',
      url: 'https://example.com',
      icon: null,
    });
    const events = (await t.send('GET', '/api/admin/events')).json().events;
    const created = events.filter((e: { type: string }) => e.type === 'application-created');
    expect(created[0].data).toEqual({
      appName: b,
      description: 'Books things',
      url: 'https://example.com',
      color: 'red',
      icon: null,
    });
    // Creating an unknown application, as Unleash's createApplication does.
    const fresh = uniqueName('made-here');
    expect((await t.send('POST', `/api/admin/metrics/applications/${fresh}`, {})).statusCode).toBe(202);
    expect((await t.send('GET', `/api/admin/metrics/applications/${fresh}`)).json()).toMatchObject({
      appName: fresh,
      instances: [],
    });
    expect((await t.send('POST', `/api/admin/metrics/applications/${fresh}`, { color: 7 })).statusCode).toBe(
      400,
    );
  });

  it('deletes an application and its instances, recording application-deleted', async () => {
    const appName = uniqueName('doomed');
    await register(devToken, { appName, instanceId: 'i1' });
    expect((await t.send('DELETE', `/api/admin/metrics/applications/${appName}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/metrics/applications/${appName}`)).statusCode).toBe(404);
    expect((await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).statusCode).toBe(404);
    expect((await t.send('DELETE', `/api/admin/metrics/applications/${appName}`)).statusCode).toBe(404);
    const events = (await t.send('GET', '/api/admin/events')).json().events;
    expect(events.find((e: { type: string }) => e.type === 'application-deleted')).toMatchObject({
      preData: { appName },
    });
  });

  it('refuses edits and deletes to SDK tokens', async () => {
    const res = await t.send('DELETE', `/api/admin/metrics/applications/${b}`, undefined, {
      authorization: devToken,
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('flag metrics and unknown flags', () => {
  it('sums yes/no/variants per environment and lists the applications', async () => {
    const appName = uniqueName('usage-app');
    const name = uniqueName('usage-flag');
    await api(t).createFlag('default', { name });
    await metrics(devToken, appName, { [name]: { yes: 2, no: 1, variants: { a: 2 } } });
    await metrics(devToken, appName, { [name]: { yes: 1, no: 0, variants: { a: 1, b: 0 } } });
    await metrics(prodToken, appName, { [name]: { yes: 0, no: 4 } });
    const body = (await t.send('GET', `/api/admin/client-metrics/features/${name}`)).json();
    expect(body).toMatchObject({
      version: 1,
      maturity: 'stable',
      featureName: name,
      seenApplications: [appName],
      totalUsage: [
        { environment: 'development', yes: 3, no: 1, variants: { a: 3 } },
        { environment: 'production', yes: 0, no: 4, variants: {} },
      ],
    });
    expect(body.lastHourUsage).toHaveLength(2);
    expect(body.lastHourUsage[0]).toMatchObject({
      featureName: name,
      appName,
      yes: 3,
      no: 1,
      variants: { a: 3 },
    });
    const raw = (await t.send('GET', `/api/admin/client-metrics/features/${name}/raw`)).json();
    expect(raw.data).toHaveLength(2);
    expect((await t.send('GET', '/api/admin/client-metrics/features/unseen')).json()).toMatchObject({
      lastHourUsage: [],
      totalUsage: [],
      seenApplications: [],
    });
  });

  it('lists unknown flag names with who reported them', async () => {
    const appName = uniqueName('typo-app');
    await metrics(prodToken, appName, { 'typo-flag': { yes: 1, no: 0 } });
    const body = (await t.send('GET', '/api/admin/metrics/unknown-flags')).json();
    expect(body.unknownFlags.find((f: { name: string }) => f.name === 'typo-flag')).toEqual({
      name: 'typo-flag',
      lastSeenAt: expect.any(String),
      reports: [{ appName, environments: [{ environment: 'production', seenAt: expect.any(String) }] }],
    });
    expect(body.unknownFlags.some((f: { name: string }) => f.name === flag)).toBe(false);
  });

  it('keeps unknown names apart from the metrics, and bounded', async () => {
    const appName = uniqueName('noisy-app');
    for (let batch = 0; batch < 12; batch++) {
      const toggles = Object.fromEntries(
        Array.from({ length: 150 }, (_, i) => [`noise-${batch}-${i}`, { yes: 1, no: 0 }]),
      );
      expect((await metrics(devToken, appName, toggles)).statusCode).toBe(202);
    }
    const kept = await t.database.session((run) => run('SELECT count(*)::int AS n FROM unknown_flags'));
    expect(kept).toEqual([{ n: 1000 }]);
    const counted = await t.database.session((run) =>
      run('SELECT count(*)::int AS n FROM client_metrics_env WHERE app_name = $1', [appName]),
    );
    expect(counted).toEqual([{ n: 0 }]);
    const overview = (await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).json();
    expect(overview.featureCount).toBe(0);
    expect(overview.environments[0].issues.missingFeatures.length).toBeLessThanOrEqual(1000);
  });
});
