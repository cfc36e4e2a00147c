import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from '../../../test/config-sql.js';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { loadConfig } from '../../config.js';

let t: TestApp;
let sql: ReturnType<typeof configSql>;
let clock = Date.parse('2030-01-01T00:00:00Z');
const project = uniqueName('fe-proj');
/** Frontend tokens: the project in development, the project in production. */
let dev: string;
let prod: string;
const flag = {
  on: uniqueName('fe-on'),
  off: uniqueName('fe-off'),
  user: uniqueName('fe-user'),
  variant: uniqueName('fe-variant'),
  region: uniqueName('fe-region'),
  prodOnly: uniqueName('fe-prod'),
  elsewhere: uniqueName('fe-elsewhere'),
  address: uniqueName('fe-address'),
  env: uniqueName('fe-env'),
  dated: uniqueName('fe-dated'),
  coin: uniqueName('fe-coin'),
};

/** An admin call that must succeed. */
async function admin(method: 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res;
}
const flags = (p = project) => `/api/admin/projects/${p}/features`;
async function createFlag(name: string, p = project, body: Record<string, unknown> = {}) {
  await admin('POST', flags(p), { name, ...body });
}
async function strategy(name: string, env: string, body: Record<string, unknown>, p = project) {
  await admin('POST', `${flags(p)}/${name}/environments/${env}/strategies`, body);
}
async function on(name: string, env: string, p = project) {
  await admin('POST', `${flags(p)}/${name}/environments/${env}/on`);
}

const frontend = (query = '', headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'GET', url: `/api/frontend${query}`, headers: { authorization: dev, ...headers } });
const names = (body: { toggles: { name: string }[] }) => body.toggles.map((x) => x.name).sort();

beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(clock) });
  sql = configSql(t);
  await admin('POST', '/api/admin/projects', { id: project, name: project });
  await createFlag(flag.on, project, { impressionData: true });
  await on(flag.on, 'development');
  await createFlag(flag.off);
  await createFlag(flag.user);
  await strategy(flag.user, 'development', { name: 'userWithId', parameters: { userIds: 'u1,u2' } });
  await on(flag.user, 'development');
  await createFlag(flag.variant);
  await strategy(flag.variant, 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'userId', groupId: flag.variant },
    variants: [
      {
        name: 'blue',
        weight: 1000,
        weightType: 'variable',
        stickiness: 'userId',
        payload: { type: 'json', value: '{"color":"blue"}' },
      },
    ],
  });
  await on(flag.variant, 'development');
  await createFlag(flag.region);
  await strategy(flag.region, 'development', {
    name: 'default',
    constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
  });
  await on(flag.region, 'development');
  await createFlag(flag.prodOnly);
  await on(flag.prodOnly, 'production');
  await createFlag(flag.elsewhere, 'default');
  await on(flag.elsewhere, 'development', 'default');
  await createFlag(flag.address);
  await strategy(flag.address, 'development', { name: 'remoteAddress', parameters: { IPs: '127.0.0.1' } });
  await on(flag.address, 'development');
  await createFlag(flag.env);
  await strategy(flag.env, 'development', {
    name: 'default',
    constraints: [{ contextName: 'environment', operator: 'IN', values: ['development'] }],
  });
  await on(flag.env, 'development');
  await createFlag(flag.dated);
  await strategy(flag.dated, 'development', {
    name: 'default',
    constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2030-06-01T00:00:00.000Z' }],
  });
  await on(flag.dated, 'development');
  await createFlag(flag.coin);
  await strategy(flag.coin, 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'default', groupId: flag.coin },
  });
  await on(flag.coin, 'development');
  dev = await sql.addToken('frontend', [project], 'development');
  prod = await sql.addToken('frontend', [project], 'production');
});
afterAll(() => t.close());

describe('GET /api/frontend', () => {
  it("lists the enabled flags of the token's projects and environment, in the shape the browser SDK reads", async () => {
    const res = await frontend('?appName=web&userId=u1&sessionId=s1');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    // The 50 % rollout (flag.coin) depends on the session id's hash: left out here.
    expect(names(body).filter((n) => n !== flag.coin)).toEqual(
      [flag.address, flag.env, flag.on, flag.user, flag.variant].sort(),
    );
    const byName = new Map(body.toggles.map((x: { name: string }) => [x.name, x]));
    expect(byName.get(flag.on)).toEqual({
      name: flag.on,
      enabled: true,
      variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true },
      impressionData: true,
    });
    expect(byName.get(flag.variant)).toEqual({
      name: flag.variant,
      enabled: true,
      variant: {
        name: 'blue',
        enabled: true,
        payload: { type: 'json', value: '{"color":"blue"}' },
        feature_enabled: true,
        featureEnabled: true,
      },
      impressionData: false,
    });
  });

  it('answers per environment: the production token sees only what is on in production', async () => {
    const res = await frontend('?userId=u1&sessionId=s1', { authorization: prod });
    expect(res.statusCode).toBe(200);
    expect(names(res.json())).toEqual([flag.prodOnly]);
  });

  it('reads properties[name]=value, other parameters as properties, properties[] winning', async () => {
    const without = await frontend('?sessionId=s1');
    expect(names(without.json())).not.toContain(flag.region);
    expect(names((await frontend('?sessionId=s1&properties[region]=eu')).json())).toContain(flag.region);
    expect(names((await frontend('?sessionId=s1&region=eu')).json())).toContain(flag.region);
    expect(names((await frontend('?sessionId=s1&region=eu&properties[region]=us')).json())).not.toContain(
      flag.region,
    );
    expect(names((await frontend('?sessionId=s1&properties%5Bregion%5D=eu')).json())).toContain(flag.region);
  });

  it("fills the context as Unleash does: the request's address, the token's environment", async () => {
    const plain = names((await frontend('?sessionId=s1')).json());
    expect(plain).toContain(flag.address); // inject comes from 127.0.0.1
    expect(plain).toContain(flag.env);
    const given = names((await frontend('?sessionId=s1&remoteAddress=10.1.1.1&environment=default')).json());
    expect(given).not.toContain(flag.address);
    expect(given).not.toContain(flag.env);
  });

  it('draws a random session id per request when none is given, and sticks to a given one', async () => {
    const seen = new Set<boolean>();
    for (let i = 0; i < 40; i++) seen.add(names((await frontend()).json()).includes(flag.coin));
    expect([...seen].sort()).toEqual([false, true]);
    const fixed = new Set<boolean>();
    for (let i = 0; i < 10; i++)
      fixed.add(names((await frontend('?sessionId=sticky')).json()).includes(flag.coin));
    expect(fixed.size).toBe(1);
  });

  it('evaluates dates at the server clock, or at currentTime when given, never from a kept answer', async () => {
    expect(names((await frontend('?sessionId=s1')).json())).not.toContain(flag.dated);
    const at = encodeURIComponent('2030-07-01T00:00:00Z');
    expect(names((await frontend(`?sessionId=s1&currentTime=${at}`)).json())).toContain(flag.dated);
    clock = Date.parse('2030-07-01T00:00:00Z');
    try {
      expect(names((await frontend('?sessionId=s1')).json())).toContain(flag.dated);
    } finally {
      clock = Date.parse('2030-01-01T00:00:00Z');
    }
  });

  it('refuses a repeated parameter with 400 in the error format', async () => {
    const res = await frontend('?userId=a&userId=b');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ name: 'ValidationError', id: expect.any(String) });
  });
});

describe('ETag and 304', () => {
  it('answers 304 for the ETag of the same answer, 200 once the answer changes', async () => {
    const first = await frontend('?userId=u1&sessionId=s1');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await frontend('?userId=u1&sessionId=s1', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    // Another context with another answer: a 200 and another ETag.
    const other = await frontend('?userId=u9&sessionId=s1', { 'if-none-match': etag });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
    // An admin change reaches the answer (within a second).
    await admin('POST', `${flags()}/${flag.off}/environments/development/on`);
    try {
      const started = Date.now();
      let changed = again;
      while (changed.statusCode === 304 && Date.now() - started < 2000) {
        await new Promise((r) => setTimeout(r, 20));
        changed = await frontend('?userId=u1&sessionId=s1', { 'if-none-match': etag });
      }
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(names(changed.json())).toContain(flag.off);
    } finally {
      await admin('POST', `${flags()}/${flag.off}/environments/development/off`);
      // The tests after this one expect it off: wait until the answer says so.
      const started = Date.now();
      while (Date.now() - started < 2000) {
        if (!names((await frontend('?userId=u1&sessionId=s1')).json()).includes(flag.off)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
});

describe('POST /api/frontend and GET /api/frontend/features/:featureName', () => {
  it('takes the context from the body and answers as GET does (never 304)', async () => {
    const get = await frontend('?userId=u1&sessionId=s1&properties[region]=eu');
    const post = await t.request({
      method: 'POST',
      url: '/api/frontend',
      headers: { authorization: dev, 'if-none-match': get.headers.etag as string },
      payload: { context: { userId: 'u1', sessionId: 's1', properties: { region: 'eu' } } },
    });
    expect(post.statusCode).toBe(200);
    expect(post.body).toBe(get.body);
    expect(post.headers.etag).toBe(get.headers.etag);
  });

  it('answers one enabled flag, 404 when it is off, outside the scope or not enabled for the context', async () => {
    const one = await t.request({
      method: 'GET',
      url: `/api/frontend/features/${flag.user}?userId=u2&sessionId=s1`,
      headers: { authorization: dev },
    });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({
      name: flag.user,
      enabled: true,
      variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true },
      impressionData: false,
    });
    for (const url of [
      `/api/frontend/features/${flag.user}?userId=u3&sessionId=s1`,
      `/api/frontend/features/${flag.off}`,
      `/api/frontend/features/${flag.elsewhere}`,
      '/api/frontend/features/no-such-flag',
    ]) {
      const res = await t.request({ method: 'GET', url, headers: { authorization: dev } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
    }
  });
});

describe('metrics and registration', () => {
  it("stores the counts in the token's environment and answers 200 without a body", async () => {
    const app = uniqueName('browser-app');
    const start = new Date(clock).toISOString();
    const res = await t.request({
      method: 'POST',
      url: '/api/frontend/client/metrics',
      headers: { authorization: dev },
      payload: {
        appName: app,
        instanceId: 'browser',
        environment: 'production',
        bucket: { start, stop: start, toggles: { [flag.on]: { yes: 4, no: 1, variants: { disabled: 5 } } } },
        impactMetrics: [],
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    const rows = await t.database.session((run) =>
      run('SELECT feature_name, environment, yes::int, no::int FROM client_metrics_env WHERE app_name = $1', [
        app,
      ]),
    );
    expect(rows).toEqual([{ feature_name: flag.on, environment: 'development', yes: 4, no: 1 }]);
    const empty = await t.request({
      method: 'POST',
      url: '/api/frontend/client/metrics',
      headers: { authorization: dev },
      payload: { appName: app, bucket: null },
    });
    expect(empty.statusCode).toBe(200);
    const bad = await t.request({
      method: 'POST',
      url: '/api/frontend/client/metrics',
      headers: { authorization: dev },
      payload: { appName: app, bucket: { start: 'soon', stop: start, toggles: { x: { yes: -1, no: 0 } } } },
    });
    expect(bad.statusCode).toBe(400);
    const paths = bad.json().details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/body/bucket/start', '/body/bucket/toggles/x/yes']));
  });

  it('records the application and the instance as a frontend SDK', async () => {
    const app = uniqueName('browser-app');
    const body = {
      appName: app,
      instanceId: 'tab-1',
      sdkVersion: 'unleash-js:3.8.2',
      interval: 30000,
      started: 1,
      strategies: ['default'],
    };
    const res = await t.request({
      method: 'POST',
      url: '/api/frontend/client/register',
      headers: { authorization: dev },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const rows = await t.database.session((run) =>
      run(
        'SELECT instance_id, environment, sdk_version, sdk_type FROM client_instances WHERE app_name = $1',
        [app],
      ),
    );
    expect(rows).toEqual([
      {
        instance_id: 'tab-1',
        environment: 'development',
        sdk_version: 'unleash-js:3.8.2',
        sdk_type: 'frontend',
      },
    ]);
    const { strategies: _s, ...missing } = body;
    const bad = await t.request({
      method: 'POST',
      url: '/api/frontend/client/register',
      headers: { authorization: dev },
      payload: missing,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/body/strategies');
  });
});

describe('who may call it', () => {
  it('refuses client and admin tokens (403), a missing or unknown token (401)', async () => {
    const client = await sql.addToken('client', [project], 'development');
    for (const [authorization, status] of [
      [client, 403],
      [ADMIN_TOKEN, 403],
      [undefined, 401],
      [`${project}:development.not-a-token`, 401],
    ] as const) {
      const res = await frontend('?sessionId=s1', { authorization });
      expect(res.statusCode, String(authorization)).toBe(status);
      expect(res.json().name).toBe(status === 401 ? 'AuthenticationRequired' : 'NoAccessError');
      const metrics = await t.request({
        method: 'POST',
        url: '/api/frontend/client/metrics',
        headers: { authorization },
        payload: { appName: 'x' },
      });
      expect(metrics.statusCode).toBe(status);
    }
  });

  it('keeps frontend tokens out of the client and admin APIs', async () => {
    for (const url of ['/api/client/features', '/api/admin/projects']) {
      const res = await t.request({ method: 'GET', url, headers: { authorization: dev } });
      expect(res.statusCode, url).toBe(403);
    }
  });
});

describe('CORS (FRONTEND_CORS_ORIGINS=*, the default)', () => {
  it('answers a preflight without credentials, and only for the frontend API', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/api/frontend?userId=u1',
      headers: {
        authorization: undefined,
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,unleash-appname,if-none-match',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(res.headers['access-control-allow-headers']).toBe('authorization,unleash-appname,if-none-match');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-max-age']).toBe('86400');
    const metrics = await t.request({
      method: 'OPTIONS',
      url: '/api/frontend/client/metrics',
      headers: {
        authorization: undefined,
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
      },
    });
    expect(metrics.statusCode).toBe(204);
    const adminPreflight = await t.request({
      method: 'OPTIONS',
      url: '/api/admin/projects',
      headers: {
        authorization: undefined,
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
      },
    });
    expect(adminPreflight.statusCode).toBe(404);
    expect(adminPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets any origin read answers, errors included, and the ETag', async () => {
    const ok = await frontend('?sessionId=s1', { origin: 'https://shop.example' });
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    expect(ok.headers['access-control-expose-headers']).toBe('ETag');
    const refused = await frontend('?sessionId=s1', {
      origin: 'https://shop.example',
      authorization: undefined,
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    const admin = await t.request({
      method: 'GET',
      url: '/api/admin/projects',
      headers: { origin: 'https://shop.example' },
    });
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS with named origins', () => {
  let named: TestApp;
  let namedToken: string;
  beforeAll(async () => {
    named = await startTestApp({
      config: { FRONTEND_CORS_ORIGINS: 'https://a.example, https://b.example:8443' },
    });
    namedToken = await configSql(named).addToken('frontend', ['default'], 'development');
  });
  afterAll(() => named?.close());

  const preflight = (origin: string) =>
    named.request({
      method: 'OPTIONS',
      url: '/api/frontend',
      headers: { authorization: undefined, origin, 'access-control-request-method': 'GET' },
    });

  it('echoes an allowed origin with credentials and Vary: Origin, and names no other', async () => {
    for (const origin of ['https://a.example', 'https://b.example:8443']) {
      const res = await preflight(origin);
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(String(res.headers.vary)).toMatch(/Origin/);
    }
    const answer = await named.request({
      method: 'GET',
      url: '/api/frontend?sessionId=s1',
      headers: { authorization: namedToken, origin: 'https://b.example:8443' },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('https://b.example:8443');
    expect(answer.headers['access-control-allow-credentials']).toBe('true');
    expect(answer.headers['access-control-expose-headers']).toBe('ETag');
    expect(String(answer.headers.vary).split(/,\s*/).sort()).toEqual(['Accept-Encoding', 'Origin']);
    const evil = await preflight('https://evil.example');
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const refused = await named.request({
      method: 'GET',
      url: '/api/frontend',
      headers: { authorization: undefined, origin: 'https://a.example' },
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('https://a.example');
    expect(refused.headers['access-control-allow-credentials']).toBe('true');
  });

  it('refuses a malformed origin list at start-up', async () => {
    expect(() => loadConfig({ FRONTEND_CORS_ORIGINS: 'a.example' })).toThrow(/FRONTEND_CORS_ORIGINS/);
    expect(loadConfig({ FRONTEND_CORS_ORIGINS: 'https://a.example,*' }).FRONTEND_CORS_ORIGINS).toBe(
      'https://a.example,*',
    );
  });
});

describe('compression', () => {
  it('gzips a kept answer for clients that accept it, never an answer made for one request', async () => {
    for (let i = 0; i < 8; i++) {
      const name = uniqueName('fe-bulk');
      await createFlag(name);
      await on(name, 'development');
    }
    const query = '?userId=u1&sessionId=gz';
    const started = Date.now();
    let plain = await frontend(query);
    while (plain.rawPayload.length < 2048 && Date.now() - started < 2000) {
      await new Promise((r) => setTimeout(r, 20));
      plain = await frontend(query);
    }
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await frontend(query, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    // No session id: a random one, an answer for this request only, sent as it is.
    const once = await frontend('?userId=u1', { 'accept-encoding': 'gzip' });
    expect(once.headers['content-encoding']).toBeUndefined();
    expect(once.json().toggles.length).toBeGreaterThan(8);
  });
});
