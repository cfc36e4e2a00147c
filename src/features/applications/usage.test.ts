import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

// The service's clock, set by the tests: null follows the real time.
let clock: number | null = null;
const now = () => new Date(clock ?? Date.now());
const HOUR = 3_600_000;

let t: TestApp;
const project = uniqueName('apps-project');
const projectFlag = uniqueName('project-flag');
const defaultFlag = uniqueName('default-flag');
// Names chosen so that sorting by name gives a, b (c never shows in the project).
const appA = uniqueName('a-app');
const appB = uniqueName('b-app');
const appC = uniqueName('c-app');
const tokens: Record<string, string> = {};

async function report(
  environment: string,
  appName: string,
  instanceId: string,
  sdkVersion: string,
  flag: string,
) {
  const authorization = tokens[environment] as string;
  const registered = await t.send(
    'POST',
    '/api/client/register',
    { appName, instanceId, sdkVersion, strategies: ['default'] },
    { authorization },
  );
  expect(registered.statusCode).toBe(202);
  const start = now().toISOString();
  const sent = await t.send(
    'POST',
    '/api/client/metrics',
    { appName, instanceId, bucket: { start, stop: start, toggles: { [flag]: { yes: 1, no: 0 } } } },
    { authorization },
  );
  expect(sent.statusCode).toBe(202);
}

beforeAll(async () => {
  t = await startTestApp({ now });
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201);
  await api(t).createFlag(project, { name: projectFlag });
  await api(t).createFlag('default', { name: defaultFlag });
  const sql = configSql(t);
  tokens.development = await sql.addToken('client', ['*'], 'development');
  tokens.production = await sql.addToken('client', ['*'], 'production');
  await report('development', appA, 'a1', 'unleash-client-node:5.0.0', projectFlag);
  await report('production', appA, 'a2', 'unleash-client-node:6.1.0', projectFlag);
  await report('development', appB, 'b1', 'unleash-client-java:9.0.0', projectFlag);
  await report('development', appC, 'c1', 'unleash-client-node:5.0.0', defaultFlag);
});
afterAll(() => t.close());

const get = async (url: string, status = 200) => {
  const res = await t.send('GET', url);
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
};

describe('GET /api/admin/metrics/instances/:appName/environment/:environment', () => {
  it('lists the instances of the environment seen in the last 24 hours, most recent first', async () => {
    const appName = uniqueName('instances-app');
    clock = Date.now() - 25 * HOUR;
    await report('development', appName, 'gone', 'unleash-client-node:6.1.0', defaultFlag);
    clock = Date.now() - HOUR;
    await report('development', appName, 'earlier', 'unleash-client-node:6.1.0', defaultFlag);
    clock = null;
    await report('development', appName, 'latest', 'unleash-client-go:4.1.0', defaultFlag);
    await report('production', appName, 'elsewhere', 'unleash-client-go:4.1.0', defaultFlag);

    const body = await get(`/api/admin/metrics/instances/${appName}/environment/development`);
    expect(body).toEqual({
      instances: [
        {
          instanceId: 'latest',
          sdkVersion: 'unleash-client-go:4.1.0',
          clientIp: expect.any(String),
          lastSeen: expect.any(String),
        },
        {
          instanceId: 'earlier',
          sdkVersion: 'unleash-client-node:6.1.0',
          clientIp: expect.any(String),
          lastSeen: expect.any(String),
        },
      ],
    });
    expect(Date.parse(body.instances[0].lastSeen)).toBeGreaterThan(Date.parse(body.instances[1].lastSeen));
  });

  it('answers no instances for an application never seen', async () => {
    expect(await get('/api/admin/metrics/instances/nobody/environment/development')).toEqual({
      instances: [],
    });
  });
});

describe('GET /api/admin/metrics/sdks/outdated and /api/admin/projects/:projectId/sdks/outdated', () => {
  it('lists SDK versions below the minimum with the applications running them', async () => {
    const body = await get('/api/admin/metrics/sdks/outdated');
    expect(body.sdks).toEqual(
      expect.arrayContaining([
        { sdkVersion: 'unleash-client-java:9.0.0', applications: [appB] },
        { sdkVersion: 'unleash-client-node:5.0.0', applications: [appA, appC] },
      ]),
    );
    const versions = body.sdks.map((s: { sdkVersion: string }) => s.sdkVersion);
    expect(versions).not.toContain('unleash-client-node:6.1.0');
    expect(versions).not.toContain('unleash-client-go:4.1.0');
    expect(versions).toEqual([...versions].sort());
  });

  it("keeps to the applications that reported the project's flags", async () => {
    expect(await get(`/api/admin/projects/${project}/sdks/outdated`)).toEqual({
      sdks: [
        { sdkVersion: 'unleash-client-java:9.0.0', applications: [appB] },
        { sdkVersion: 'unleash-client-node:5.0.0', applications: [appA] },
      ],
    });
  });

  it('answers 404 for an unknown project', async () => {
    const body = await get('/api/admin/projects/no-such-project/sdks/outdated', 404);
    expect(body).toMatchObject({
      name: 'NotFoundError',
      message: expect.stringContaining('no-such-project'),
    });
  });
});

describe('GET /api/admin/projects/:projectId/applications', () => {
  const a = {
    name: appA,
    environments: ['development', 'production'],
    instances: ['a1', 'a2'],
    sdks: [{ name: 'unleash-client-node', versions: ['5.0.0', '6.1.0'] }],
  };
  const b = {
    name: appB,
    environments: ['development'],
    instances: ['b1'],
    sdks: [{ name: 'unleash-client-java', versions: ['9.0.0'] }],
  };
  const url = `/api/admin/projects/${project}/applications`;

  it("lists the applications that reported the project's flags, with environments, instances and SDKs", async () => {
    expect(await get(url)).toEqual({ total: 2, applications: [a, b] });
  });

  it('pages and sorts by name', async () => {
    expect(await get(`${url}?limit=1`)).toEqual({ total: 2, applications: [a] });
    expect(await get(`${url}?limit=1&offset=1`)).toEqual({ total: 2, applications: [b] });
    expect(await get(`${url}?sortOrder=desc&sortBy=appName`)).toEqual({ total: 2, applications: [b, a] });
    expect(await get(`${url}?offset=5`)).toEqual({ total: 2, applications: [] });
  });

  it('filters rows by application name, environment, instance or SDK', async () => {
    expect(await get(`${url}?query=JAVA`)).toEqual({ total: 1, applications: [b] });
    expect(await get(`${url}?query=${appA.toUpperCase()}`)).toEqual({ total: 1, applications: [a] });
    expect(await get(`${url}?query=prod`)).toEqual({
      total: 1,
      applications: [
        {
          name: appA,
          environments: ['production'],
          instances: ['a2'],
          sdks: [{ name: 'unleash-client-node', versions: ['6.1.0'] }],
        },
      ],
    });
  });

  it('refuses a bad page and answers 404 for an unknown project', async () => {
    expect((await get(`${url}?limit=0`, 400)).name).toBe('ValidationError');
    expect((await get('/api/admin/projects/no-such-project/applications', 404)).name).toBe('NotFoundError');
  });
});
