import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { configSql } from './config-sql.js';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from './harness.js';
import { listeningApp, rawRequest } from './raw-http.js';

/**
 * The SDK poll that finds nothing new is answered before Fastify routes it
 * (src/features/client-api/not-modified.ts, docs/adr/0018). What the SDK sees must be exactly
 * Fastify's answer; every other request must reach Fastify. A request with a query string takes
 * Fastify's route to the same handler, which gives the answer to compare with.
 */
let t: TestApp;
let port: number;
/** `METHOD url` of every request Fastify answered (a hook of this test). */
let reached: string[] = [];
let client: string;
const flag = uniqueName('early');

const raw = (path: string, headers: Record<string, string>, method = 'GET', at = port) =>
  rawRequest(at, path, headers, method);

/** Whether the request reached Fastify (the hook saw it) since `from` entries. */
const reachedSince = (from: number, what: string) => reached.slice(from).includes(what);

const etagOf = async (token: string, encoding: string, more: Record<string, string> = {}) => {
  const res = await raw('/api/client/features', {
    authorization: token,
    'accept-encoding': encoding,
    ...more,
  });
  expect(res.status).toBe(200);
  return res.headers.find(([name]) => name.toLowerCase() === 'etag')?.[1] as string;
};

beforeAll(async () => {
  ({ t, port, reached } = await listeningApp());
  await api(t).createFlag('default', { name: flag });
  client = await configSql(t).addToken('client', ['*'], 'development');
});
afterAll(() => t.close());

describe('the 304 answered before Fastify', () => {
  it("gives Fastify's status and headers, plain and gzip, without reaching Fastify", async () => {
    for (const encoding of ['identity', 'gzip']) {
      const etag = await etagOf(client, encoding);
      const from = reached.length;
      const headers = { authorization: client, 'accept-encoding': encoding, 'if-none-match': etag };
      const early = await raw('/api/client/features', headers);
      const routed = await raw('/api/client/features?', headers);
      expect(reachedSince(from, 'GET /api/client/features')).toBe(false);
      expect(reachedSince(from, 'GET /api/client/features?')).toBe(true);
      expect(early.status).toBe(304);
      expect(early.body).toBe('');
      expect(early).toEqual(routed);
      expect(early.headers).toContainEqual(['etag', etag]);
    }
  });

  it('also for "Bearer", a weak or a listed validator, and a client that announces its spec', async () => {
    const etag = await etagOf(client, 'identity');
    // SDKs of spec 4.2.0+ get segments apart: another payload, another ETag.
    const spec = { 'unleash-client-spec': '5.1.0' };
    const specEtag = await etagOf(client, 'identity', spec);
    expect(specEtag).not.toBe(etag);
    for (const headers of [
      { authorization: `Bearer ${client}`, 'if-none-match': etag },
      { authorization: client, 'if-none-match': `"other", W/${etag}` },
      { authorization: client, 'if-none-match': specEtag, ...spec },
    ]) {
      const from = reached.length;
      const early = await raw('/api/client/features', headers);
      expect(early, JSON.stringify(headers)).toMatchObject({ status: 304 });
      expect(reachedSince(from, 'GET /api/client/features')).toBe(false);
      expect(early).toEqual(await raw('/api/client/features?', headers));
    }
  });

  it('leaves every other request to Fastify, which answers as before', async () => {
    const etag = await etagOf(client, 'identity');
    const frontend = await configSql(t).addToken('frontend', ['*'], 'development');
    const cases: { path?: string; method?: string; headers: Record<string, string>; status: number }[] = [
      { headers: { authorization: client }, status: 200 },
      { headers: { authorization: client, 'if-none-match': '"stale"' }, status: 200 },
      { headers: { authorization: 'default:development.unknown', 'if-none-match': etag }, status: 401 },
      { headers: { authorization: frontend, 'if-none-match': etag }, status: 403 },
      { headers: { authorization: ADMIN_TOKEN, 'if-none-match': etag }, status: 403 },
      { headers: { 'if-none-match': etag }, status: 401 },
      { method: 'HEAD', headers: { authorization: client, 'if-none-match': etag }, status: 304 },
      {
        path: '/api/client/features/',
        headers: { authorization: client, 'if-none-match': etag },
        status: 404,
      },
    ];
    for (const c of cases) {
      const from = reached.length;
      const path = c.path ?? '/api/client/features';
      const res = await raw(path, c.headers, c.method);
      expect({ ...c, status: res.status }).toEqual(c);
      expect(reachedSince(from, `${c.method ?? 'GET'} ${path}`), JSON.stringify(c)).toBe(true);
    }
  });

  it('stops at once for a token deleted through the admin API', async () => {
    const created = await t.send('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('sdk'),
      type: 'client',
      environment: 'development',
      projects: ['*'],
    });
    const secret = created.json().secret as string;
    const etag = await etagOf(secret, 'identity');
    const headers = { authorization: secret, 'if-none-match': etag };
    const from = reached.length;
    expect((await raw('/api/client/features', headers)).status).toBe(304);
    expect(reachedSince(from, 'GET /api/client/features')).toBe(false);
    expect((await t.send('DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`)).statusCode).toBe(
      200,
    );
    expect((await raw('/api/client/features', headers)).status).toBe(401);
  });

  it("ends when a change reaches the token's environment: the new payload comes from Fastify", async () => {
    const etag = await etagOf(client, 'identity');
    const headers = { authorization: client, 'if-none-match': etag };
    expect((await raw('/api/client/features', headers)).status).toBe(304);
    const toggled = await t.send(
      'POST',
      `/api/admin/projects/default/features/${flag}/environments/development/on`,
    );
    expect(toggled.statusCode).toBe(200);
    let res = await raw('/api/client/features', headers);
    for (let i = 0; i < 50 && res.status === 304; i++) {
      await new Promise((r) => setTimeout(r, 20));
      res = await raw('/api/client/features', headers);
    }
    expect(res.status).toBe(200);
    const enabled = (JSON.parse(res.body) as { features: { name: string; enabled: boolean }[] }).features;
    expect(enabled.find((f) => f.name === flag)?.enabled).toBe(true);
  });

  it('is counted in the HTTP metrics as the 304s Fastify gives', async () => {
    const count = async () => {
      const text = (await raw('/internal-backstage/prometheus', {})).body;
      const line = text
        .split('\n')
        .find((l) =>
          l.startsWith('http_requests_total{method="GET",route="/api/client/features",status="304"}'),
        );
      return Number(line?.split(' ')[1] ?? 0);
    };
    const etag = await etagOf(client, 'identity');
    const before = await count();
    const from = reached.length;
    for (let i = 0; i < 3; i++) {
      expect(
        (await raw('/api/client/features', { authorization: client, 'if-none-match': etag })).status,
      ).toBe(304);
    }
    expect(reachedSince(from, 'GET /api/client/features')).toBe(false);
    expect(await count()).toBe(before + 3);
  });
});

describe('at the debug log level', () => {
  it('is not installed: the SDK poll reaches Fastify (which logs every request at this level) and gets its 304', async () => {
    const seen: string[] = [];
    const debug = await startTestApp({
      config: { LOG_LEVEL: 'debug' },
      beforeReady: (app) =>
        app.addHook('onResponse', (request, _reply, done) => {
          seen.push(`${request.method} ${request.url}`);
          done();
        }),
    });
    try {
      await debug.app.listen({ port: 0, host: '127.0.0.1' });
      const at = (debug.app.server.address() as AddressInfo).port;
      const token = await configSql(debug).addToken('client', ['*'], 'development');
      const first = await raw('/api/client/features', { authorization: token }, 'GET', at);
      const etag = first.headers.find(([name]) => name.toLowerCase() === 'etag')?.[1] as string;
      const polled = await raw(
        '/api/client/features',
        { authorization: token, 'if-none-match': etag },
        'GET',
        at,
      );
      expect(polled.status).toBe(304);
      expect(seen.filter((s) => s === 'GET /api/client/features')).toHaveLength(2);
    } finally {
      await debug.close();
    }
  });
});
