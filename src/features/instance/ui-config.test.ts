import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      PUBLIC_URL: 'https://flags.example.com/',
      FRONTEND_CORS_ORIGINS: 'https://a.example, https://b.example',
    },
  });
});
afterAll(() => t.close());

describe('GET /api/admin/ui-config', () => {
  it('tells the UI the version, public URL, origins and maintenance mode', async () => {
    const res = await t.send('GET', '/api/admin/ui-config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      version: '0.1.0',
      unleashUrl: 'https://flags.example.com',
      baseUriPath: '',
      versionInfo: { current: { oss: '0.1.0' }, isLatest: true },
      maintenanceMode: false,
      frontendApiOrigins: ['https://a.example', 'https://b.example'],
      disablePasswordAuth: false,
    });
    await t.send('POST', '/api/admin/maintenance', { enabled: true });
    expect((await t.send('GET', '/api/admin/ui-config')).json().maintenanceMode).toBe(true);
    await t.send('POST', '/api/admin/maintenance', { enabled: false });
    expect(
      (await t.send('GET', '/api/admin/ui-config', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });
});

describe("GET /api/admin/ui-config for Unleash's web UI", () => {
  // Unleash 8.2's resourceLimitsSchema, its required keys.
  const LIMIT_KEYS = [
    'segmentValues',
    'strategySegments',
    'actionSetActions',
    'actionSetsPerProject',
    'actionSetFilters',
    'actionSetFilterValues',
    'signalEndpoints',
    'signalTokensPerEndpoint',
    'featureEnvironmentStrategies',
    'constraintValues',
    'environments',
    'projects',
    'apiTokens',
    'segments',
    'featureFlags',
    'constraints',
    'releaseTemplates',
  ];

  it('names the open-source edition and gives every resource limit', async () => {
    const body = (await t.send('GET', '/api/admin/ui-config')).json();
    expect(body.environment).toBe('Open source');
    expect(Object.keys(body.resourceLimits).sort()).toEqual([...LIMIT_KEYS].sort());
    for (const key of LIMIT_KEYS) expect(Number.isInteger(body.resourceLimits[key]), key).toBe(true);
  });

  it('gives the bounds the service enforces: one past each is refused, the bound itself accepted', async () => {
    const limits = (await t.send('GET', '/api/admin/ui-config')).json().resourceLimits;
    const flag = `limits-${Date.now()}`;
    expect((await t.send('POST', '/api/admin/projects/default/features', { name: flag })).statusCode).toBe(
      200,
    );
    const strategies = `/api/admin/projects/default/features/${flag}/environments/development/strategies`;
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const constraint = (n: number) => ({ contextName: 'userId', operator: 'IN', values: values(n) });
    const add = (body: Record<string, unknown>) => t.send('POST', strategies, { name: 'default', ...body });
    const refused = async (body: Record<string, unknown>) => {
      const res = await add(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    };
    await refused({ constraints: [constraint(limits.constraintValues + 1)] });
    await refused({ constraints: Array.from({ length: limits.constraints + 1 }, () => constraint(1)) });
    await refused({ segments: Array.from({ length: limits.strategySegments + 1 }, (_, i) => i + 1) });
    expect((await add({ constraints: [constraint(limits.constraintValues)] })).statusCode).toBe(200);
    const many = await add({ constraints: Array.from({ length: limits.constraints }, () => constraint(1)) });
    expect(many.statusCode, many.body).toBe(200);
    expect(limits.segmentValues).toBe(limits.constraints * limits.constraintValues);
  });
});

describe('GET /api/admin/instance-admin/statistics', () => {
  it('counts the instance and keeps one instance id; the CSV holds the same values', async () => {
    const first = await t.send('GET', '/api/admin/instance-admin/statistics');
    expect(first.statusCode).toBe(200);
    const before = first.json();
    expect(before.instanceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(before).toMatchObject({
      versionOSS: '0.1.0',
      SAMLenabled: false,
      environments: 2,
      featureImports: 0,
    });
    await t.send('POST', '/api/admin/projects/default/features', { name: `stat-${Date.now()}` });
    const after = (await t.send('GET', '/api/admin/instance-admin/statistics')).json();
    expect(after.instanceId).toBe(before.instanceId);
    expect(after.featureToggles).toBe(before.featureToggles + 1);
    expect(after.sum).toMatch(/^[0-9a-f]{64}$/);
    expect(after.sum).not.toBe(before.sum);

    const csv = await t.send('GET', '/api/admin/instance-admin/statistics/csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const [header, values] = csv.body.trim().split('\n');
    expect(header?.startsWith('"instanceId","timestamp"')).toBe(true);
    expect(values).toContain(`"${after.instanceId}"`);
  });

  it('is for admins only', async () => {
    const res = await t.send('GET', '/api/admin/instance-admin/statistics', undefined, {
      authorization: undefined,
    });
    expect(res.statusCode).toBe(401);
  });
});
