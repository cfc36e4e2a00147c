import { readFile } from 'node:fs/promises';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { ensureAdminTokens, hashSecret, parseInitTokens } from '../src/features/access/index.js';
import { registerAuth } from '../src/platform/http/auth.js';
import { routes } from '../src/platform/http/routes.js';
import { api } from './api.js';
import { openTestDatabase, startTestApp, type TestApp, uniqueName } from './harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const noToken = { authorization: undefined };
type Json = Record<string, unknown>;

describe('GET /health and /ready', () => {
  it('answer 200 without a token while the database answers', async () => {
    for (const url of ['/health', '/ready']) {
      const res = await t.request({ method: 'GET', url, headers: noToken });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ health: 'GOOD' });
    }
  });

  it('answers 503 with an error body once the database is gone', async () => {
    const down = await startTestApp();
    try {
      await down.database.close();
      expect((await down.request({ method: 'GET', url: '/ready', headers: noToken })).statusCode).toBe(503);
      const res = await down.request({ method: 'GET', url: '/health', headers: noToken });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'ServiceUnavailableError',
        message: expect.any(String),
      });
    } finally {
      await down.close();
    }
  });
});

describe('GET /internal-backstage/prometheus', () => {
  it('counts requests per route pattern and status, never per raw URL', async () => {
    const name = uniqueName('metrics');
    await api(t).createFlag('default', { name });
    await t.request({ method: 'GET', url: `/api/admin/projects/default/features/${name}` });
    await t.request({ method: 'GET', url: `/api/admin/projects/default/features/${name}-missing` });
    await t.request({ method: 'GET', url: `/no-such-path-${name}` });

    const res = await t.request({ method: 'GET', url: '/internal-backstage/prometheus', headers: noToken });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.body;
    const pattern = '/api/admin/projects/:projectId/features';
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    // The process figures, collected once per process for every app it builds, appear once each.
    for (const metric of [
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(text.split('\n').filter((line) => line.startsWith(`# TYPE ${metric} `))).toHaveLength(1);
    }
    expect(text).toMatch(
      new RegExp(`^http_requests_total\\{method="POST",route="${pattern}",status="200"\\} [1-9]`, 'm'),
    );
    expect(text).toMatch(
      new RegExp(
        `^http_requests_total\\{method="GET",route="${pattern}/:featureName",status="404"\\} 1`,
        'm',
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `^http_request_duration_seconds_count\\{method="GET",route="${pattern}/:featureName",status="200"\\} 1`,
        'm',
      ),
    );
    expect(text).not.toContain(name);
    expect(text).toMatch(/^(process_resident_memory_bytes|nodejs_heap_size_used_bytes) \d/m);
  });
});

/** Every place in a schema that is an object property without a description. */
function undocumented(schema: unknown, where: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Json;
  const found: string[] = [];
  for (const [key, prop] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
    if (typeof prop.description !== 'string' || prop.description === '') found.push(`${where}.${key}`);
    found.push(...undocumented(prop, `${where}.${key}`));
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    found.push(...undocumented(s[key], `${where}[${key}]`));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    ((s[key] ?? []) as unknown[]).forEach((sub, i) => {
      found.push(...undocumented(sub, `${where}.${key}[${i}]`));
    });
  }
  return found;
}

describe('API documentation', () => {
  let doc: Json & { paths: Record<string, Record<string, Json>> };
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
  beforeAll(async () => {
    const res = await t.request({ method: 'GET', url: '/docs/openapi.json', headers: noToken });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });

  it('serves an HTML reference page at /docs', async () => {
    const res = await t.request({ method: 'GET', url: '/docs', headers: noToken });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  it('is OpenAPI 3.0 with the implemented operations; the events ones deprecated', () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    const ids = Object.fromEntries(operations().map(({ op }) => [op.operationId, op.deprecated ?? false]));
    expect(ids).toMatchObject({
      createFeature: false,
      getFeature: false,
      updateFeature: false,
      getEvents: true,
      getEventsForToggle: true,
    });
    expect(doc.paths['/api/admin/projects/{projectId}/features']?.post?.operationId).toBe('createFeature');
  });

  it('declares the apiKey security and Error-shaped error responses on every admin operation', () => {
    const schemes = (doc.components as Json).securitySchemes as Json;
    expect(schemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'Authorization' });
    const admin = operations().filter(({ path }) => path.startsWith('/api/admin/'));
    expect(admin.length).toBeGreaterThanOrEqual(5);
    for (const { path, method, op } of admin) {
      const where = `${method.toUpperCase()} ${path}`;
      // An operation without its own `security` inherits the document's.
      expect(op.security ?? doc.security, where).toEqual([{ apiKey: [] }]);
      const responses = op.responses as Record<string, Json>;
      const errors = Object.keys(responses).filter((status) => Number(status) >= 400);
      expect(errors, where).toContain('401');
      for (const status of errors) {
        const content = responses[status]?.content as Record<string, { schema: Json }>;
        expect(content['application/json']?.schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('describes every parameter and every property of every request and response schema', () => {
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(((doc.components as Json).schemas ?? {}) as Json)) {
      missing.push(...undocumented(schema, `components.${name}`));
    }
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of (op.parameters ?? []) as Json[]) {
        if (!p.description) missing.push(`${where} parameter ${p.in}.${p.name}`);
      }
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      for (const [type, media] of Object.entries(body ?? {})) {
        missing.push(...undocumented(media.schema, `${where} body(${type})`));
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          missing.push(...undocumented(media.schema, `${where} ${status}(${type})`));
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the committed openapi.json is what the app generates', async () => {
    const committed = JSON.parse(await readFile(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(t.app.swagger())));
    expect(doc).toEqual(committed);
  });
});

const NO_CALLERS = {
  header: async () => null,
  session: async () => null,
  sessionCookie: 'session',
  projectOfFlag: async () => undefined,
};

describe('route permissions', () => {
  it('refuses to start with a route that declares no permission, on a bare instance with registerAuth', async () => {
    const app = Fastify();
    registerAuth(app, NO_CALLERS);
    app.get('/declared', { config: { permission: 'PUBLIC' } }, async () => 'ok');
    app.get('/undeclared', async () => 'nope');
    await expect(app.ready()).rejects.toThrow('routes that declare no permission: GET /undeclared');
    await app.close();
  });

  it('refuses it on the real app as well, under /docs too', async () => {
    const { database, drop } = await openTestDatabase();
    const app = await buildApp({ database, config: testConfig(), now: () => new Date() });
    try {
      app.post('/api/admin/sneaky', async () => 'nope');
      app.get('/docsX', async () => 'nope');
      await expect(app.ready()).rejects.toThrow(
        'routes that declare no permission: POST /api/admin/sneaky, GET /docsX',
      );
    } finally {
      await app.close();
      await database.close();
      await drop();
    }
  });

  it('does not compile a slice route without a permission', async () => {
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    registerAuth(app, NO_CALLERS);
    await app.register(
      routes(async (slice) => {
        slice.get('/declared', { config: { permission: 'PUBLIC' }, schema: {} }, async () => 'ok');
        // @ts-expect-error: the permission is a required part of a slice route's options
        slice.get('/undeclared', { schema: {} }, async () => 'nope');
        // @ts-expect-error: and so is `config` itself
        slice.post('/undeclared', async () => 'nope');
        // @ts-expect-error: `route` is not offered to slices at all
        void slice.route;
      }),
    );
    await expect(app.ready()).rejects.toThrow('routes that declare no permission');
    await app.close();
  });

  it('answers 401 AuthenticationRequired without a token on every /api/admin route', async () => {
    // Parameter names differ between routes sharing a prefix (Fastify prints `:featureName|:child`):
    // compare the shapes, with every parameter as `:p`.
    const shape = (route: string) => route.replace(/:\w+(\|:\w+)*/g, ':p');
    const routes = adminRoutes(t.app.printRoutes({ commonPrefix: false })).map(shape);
    // Every admin route is documented, and every documented admin operation is routed.
    const documented = Object.entries(t.app.swagger().paths as Record<string, Json>)
      .filter(([path]) => path.startsWith('/api/admin/'))
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => shape(`${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)),
      );
    expect(routes.filter((r) => !r.startsWith('HEAD ')).sort()).toEqual(documented.sort());

    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const url = path.replace(/:\w+/g, 'x');
      const res = await t.request({
        method: method as 'GET',
        url,
        headers: noToken,
        payload: method === 'GET' || method === 'HEAD' ? undefined : {},
      });
      expect(res.statusCode, route).toBe(401);
      if (method !== 'HEAD') expect(res.json(), route).toMatchObject({ name: 'AuthenticationRequired' });
    }
  });
});

/** "METHOD /full/path" of every /api/admin route in Fastify's printed route tree. */
function adminRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('');
    if (m[3] && path.startsWith('/api/admin')) {
      for (const method of m[3].split(', ')) routes.push(`${method} ${path}`);
    }
  }
  return routes;
}

describe('API tokens', () => {
  it('INIT_ADMIN_API_TOKENS accepts "*:*.<secret>" lists and rejects anything else', () => {
    const long = 'a'.repeat(32);
    const other = 'other-secret-0123456789abcdef-01';
    expect(parseInitTokens(undefined)).toEqual([]);
    expect(parseInitTokens(` *:*.${long} , *:*.${other} `)).toEqual([`*:*.${long}`, `*:*.${other}`]);
    for (const bad of [
      long,
      '*:*.short',
      `default:development.${long}`,
      `*:*.has space${long}`,
      `*:*.${long},nope`,
    ]) {
      expect(() => parseInitTokens(bad), bad).toThrow(/INIT_ADMIN_API_TOKENS/);
    }
  });

  it('INIT_ADMIN_API_TOKENS refuses a secret under 32 characters, without printing it', () => {
    const short = '*:*.abcdefgh'; // 8 characters: accepted before
    expect(() => parseInitTokens(short)).toThrow(
      'INIT_ADMIN_API_TOKENS: the secret of token 1 of 1 has 8 characters; at least 32 are required',
    );
    const almost = `*:*.${'x'.repeat(31)}`;
    expect(() => parseInitTokens(`*:*.${'y'.repeat(40)},${almost}`)).toThrow(
      /token 2 of 2 has 31 characters/,
    );
    let message = '';
    try {
      parseInitTokens(almost);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('x'.repeat(8));
    expect(parseInitTokens(`*:*.${'z'.repeat(32)}`)).toEqual([`*:*.${'z'.repeat(32)}`]);
  });

  it('generates one admin token on an empty database, stores only its hash, and none once one exists', async () => {
    const { database, drop } = await openTestDatabase();
    try {
      const rows = () => database.session((run) => run('SELECT * FROM api_tokens'));
      expect(await rows()).toEqual([]);
      const secret = await ensureAdminTokens(database.db, []);
      expect(secret).toMatch(/^\*:\*\.[0-9a-f]{32,}$/);
      const stored = await rows();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ type: 'admin', secret_hash: hashSecret(secret!) });
      const hexPart = secret!.slice(4);
      for (const [column, value] of Object.entries(stored[0]!)) {
        expect(JSON.stringify(value) ?? '', column).not.toContain(hexPart);
      }
      expect(stored[0]!.display_prefix).toMatch(/^\*:\*\./);

      expect(await ensureAdminTokens(database.db, [])).toBeUndefined();
      expect(await rows()).toHaveLength(1);
    } finally {
      await database.close();
      await drop();
    }
  });

  it('refuses a client token on an admin route with 403 NoAccessError', async () => {
    const secret = `default:development.${uniqueName('client')}`;
    await t.database.session((run) =>
      run(
        `INSERT INTO api_tokens (secret_hash, token_name, type, environment, projects, display_prefix)
         VALUES ($1, 'sdk', 'client', 'development', '{default}', 'default:development.')`,
        [hashSecret(secret)],
      ),
    );
    const res = await t.request({
      method: 'GET',
      url: '/api/admin/events',
      headers: { authorization: secret },
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ name: 'NoAccessError', message: expect.any(String) });
    const bad = await t.request({
      method: 'GET',
      url: '/api/admin/events',
      headers: { authorization: `${secret}x` },
    });
    expect(bad.statusCode).toBe(401);
  });
});
