import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from '../../../test/config-sql.js';
import type { TestApp } from '../../../test/harness.js';
import { uniqueName } from '../../../test/harness.js';
import { listeningApp, type RawAnswer, rawHeader, rawRequest } from '../../../test/raw-http.js';
import { within } from '../../../test/within.js';

/**
 * A frontend SDK's repeated poll is answered before Fastify (frontend-api.early.ts). The first
 * request of a context is Fastify's (the route keeps its answer), the next ones are early: the
 * test compares the two as read off the wire, and checks that Fastify saw only the first.
 */
let t: TestApp;
let port: number;
let frontend: string;
let client: string;
/** `METHOD url` of every request Fastify answered (a hook of this test). */
let reached: string[] = [];
const project = uniqueName('early-fe');
const flags = Array.from({ length: 40 }, (_, i) => uniqueName(`early-fe-${i}`));
let session = 0;
/** A query string no request has sent yet (a session id of its own). */
const fresh = (more = '') => `?appName=web&userId=u1&sessionId=s${++session}${more}`;

const get = (query: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(port, `/api/frontend${query}`, { authorization: frontend, ...headers }, method);

/** The first request (Fastify's) and the second (the early one) of the same request. */
async function twice(query: string, headers: Record<string, string> = {}) {
  const from = reached.length;
  const routed = await get(query, headers);
  const early = await get(query, headers);
  const seen = reached.slice(from).filter((r) => r === `GET /api/frontend${query}`).length;
  return { routed, early, seen };
}

const toggles = (answer: RawAnswer) => {
  const bytes = Buffer.from(answer.body, 'latin1');
  const text = rawHeader(answer, 'content-encoding') === 'gzip' ? gunzipSync(bytes) : bytes;
  return (JSON.parse(text.toString()) as { toggles: { name: string }[] }).toggles.map((x) => x.name);
};

beforeAll(async () => {
  ({ t, port, reached } = await listeningApp());
  const sql = configSql(t);
  await t.send('POST', '/api/admin/projects', { id: project, name: project });
  // Enough enabled flags for an answer above the gzip threshold.
  for (const name of flags) {
    await t.send('POST', `/api/admin/projects/${project}/features`, { name });
    await t.send('POST', `/api/admin/projects/${project}/features/${name}/environments/development/on`);
  }
  frontend = await sql.addToken('frontend', [project], 'development');
  client = await sql.addToken('client', ['*'], 'development');
});
afterAll(() => t.close());

describe('the frontend poll answered before Fastify', () => {
  it("gives Fastify's status, headers and body, plain and gzip, and Fastify sees only the first", async () => {
    for (const encoding of ['identity', 'gzip']) {
      const { routed, early, seen } = await twice(fresh(), { 'accept-encoding': encoding });
      expect(seen).toBe(1);
      expect(routed.status).toBe(200);
      expect(early).toEqual(routed);
      expect(toggles(early).sort()).toEqual([...flags].sort());
      expect(rawHeader(early, 'content-encoding')).toBe(encoding === 'gzip' ? 'gzip' : undefined);
    }
  });

  it('answers 304 as Fastify does when If-None-Match names the answer', async () => {
    const etag = rawHeader(await get(fresh()), 'etag') as string;
    // Another session, the same flags: the same body, so the same ETag.
    const { routed, early, seen } = await twice(fresh(), { 'if-none-match': etag });
    expect(seen).toBe(1);
    expect(routed.status).toBe(304);
    expect(routed.body).toBe('');
    expect(early).toEqual(routed);
  });

  it('carries the CORS headers of the configured origins, for an allowed origin and another', async () => {
    const set = await t.send('POST', '/api/admin/ui-config/cors', {
      frontendApiOrigins: ['https://app.example'],
    });
    expect(set.statusCode).toBe(204);
    for (const origin of ['https://app.example', 'https://elsewhere.example']) {
      // The setting reaches the route within the SDK staleness bound: until then, a first
      // request may carry the old origins; the pair compared is taken once it carries the new.
      let pair = await twice(fresh(), { origin });
      await within(2000, async () => {
        pair = await twice(fresh(), { origin });
        return rawHeader(pair.routed, 'access-control-allow-credentials') === 'true';
      });
      expect(pair.seen).toBe(1);
      expect(pair.early).toEqual(pair.routed);
      expect(rawHeader(pair.early, 'access-control-allow-origin')).toBe(
        origin === 'https://app.example' ? origin : undefined,
      );
    }
  });

  it('serves the new answer once a change reaches the environment', async () => {
    const query = fresh();
    expect(toggles(await get(query))).toContain(flags[0]);
    const off = await t.send(
      'POST',
      `/api/admin/projects/${project}/features/${flags[0]}/environments/development/off`,
    );
    expect(off.statusCode).toBe(200);
    await within(2000, async () => !toggles(await get(query)).includes(flags[0] as string));
    // And that answer is kept and answered early in its turn.
    const { routed, early, seen } = await twice(query);
    expect(seen).toBe(0);
    expect(early).toEqual(routed);
    await t.send('POST', `/api/admin/projects/${project}/features/${flags[0]}/environments/development/on`);
  });

  it('leaves to Fastify what it cannot answer from memory at once, which answers as before', async () => {
    const query = fresh();
    await get(query);
    const cases: { query?: string; method?: string; headers: Record<string, string>; status: number }[] = [
      // A random session id each time: never kept.
      { query: '?appName=web&userId=u1', headers: {}, status: 200 },
      { headers: { authorization: client }, status: 403 },
      { headers: { authorization: 'default:development.unknown' }, status: 401 },
      { headers: { authorization: '' }, status: 401 },
      { method: 'HEAD', headers: {}, status: 200 },
    ];
    for (const c of cases) {
      for (let i = 0; i < 2; i++) {
        const from = reached.length;
        const path = `/api/frontend${c.query ?? query}`;
        const res = await rawRequest(port, path, { authorization: frontend, ...c.headers }, c.method);
        expect({ ...c, status: res.status }).toEqual(c);
        expect(reached.slice(from), JSON.stringify(c)).toContain(`${c.method ?? 'GET'} ${path}`);
      }
    }
  });

  it('is counted in the HTTP metrics as Fastify counts the route', async () => {
    const count = async () => {
      const text = (await rawRequest(port, '/internal-backstage/prometheus', {})).body;
      const line = text
        .split('\n')
        .find((l) => l.startsWith('http_requests_total{method="GET",route="/api/frontend",status="200"}'));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const before = await count();
    const { seen } = await twice(fresh());
    expect(seen).toBe(1);
    expect(await count()).toBe(before + 2);
  });
});
