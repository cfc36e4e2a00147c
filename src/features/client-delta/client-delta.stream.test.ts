import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { openSse, type SseMessage, type SseStream } from '../../../test/sse.js';

/**
 * `GET /api/client/streaming` on a listening server, read as raw server-sent events: framing,
 * resuming from Last-Event-ID, keep-alive comments, the per-instance cap, and the stream ending
 * when its token is deleted and when the app closes.
 */
let t: TestApp;
let base: string;
let token: string;
let closed = false;
const project = uniqueName('sse-proj');
const ENV = 'development';
const MAX = 3;
const open: SseStream[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { STREAMING_KEEPALIVE_MS: 150, STREAMING_MAX_CONNECTIONS: MAX } });
  await t.database.session(async (run) => {
    await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [project]);
    await run(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, $2)`, [
      project,
      ENV,
    ]);
  });
  token = await configSql(t).addToken('client', [project], ENV);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of open) s.close();
  if (!closed) await t.close();
});

async function stream(headers: Record<string, string> = {}, secret = token) {
  const s = await openSse(`${base}/api/client/streaming`, { authorization: secret, ...headers });
  open.push(s);
  return s;
}
/** A stream once the server has noticed earlier ones closing (it counts them until then). */
async function admitted(headers: Record<string, string> = {}, secret = token) {
  for (let attempt = 0; ; attempt++) {
    const s = await stream(headers, secret);
    if (s.status !== 503 || attempt > 40) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const events = (m: SseMessage) => JSON.parse(m.data ?? '{}').events as { type: string; eventId: number }[];
const flagUrl = (name: string) => `/api/admin/projects/${project}/features/${name}`;

describe('GET /api/client/streaming', () => {
  let first: string;
  let hydrationId: number;

  it('opens with unleash-connected carrying a hydration, then unleash-updated per change', async () => {
    first = uniqueName('sse-flag');
    await api(t).createFlag(project, { name: first });
    const s = await stream();
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const connected = await s.next((m) => m.event === 'unleash-connected');
    const [hydration] = events(connected);
    expect(hydration).toMatchObject({
      type: 'hydration',
      features: [expect.objectContaining({ name: first })],
    });
    expect(connected.id).toBe(String(hydration?.eventId));
    hydrationId = hydration?.eventId ?? 0;

    const started = Date.now();
    expect((await t.send('POST', `${flagUrl(first)}/environments/${ENV}/on`)).statusCode).toBe(200);
    const updated = await s.next((m) => m.event === 'unleash-updated', 2000);
    expect(Date.now() - started).toBeLessThan(1000);
    const [change] = events(updated);
    expect(change).toMatchObject({ type: 'feature-updated', feature: { name: first, enabled: true } });
    expect(updated.id).toBe(String(change?.eventId));
    expect(Number(updated.id)).toBeGreaterThan(hydrationId);
    s.close();
  });

  it('resumes from Last-Event-ID with only the later changes, or none', async () => {
    const s = await stream({ 'last-event-id': String(hydrationId) });
    const connected = await s.next((m) => m.event === 'unleash-connected');
    const list = events(connected);
    expect(list.map((e) => e.type)).toEqual(['feature-updated']);
    s.close();

    const current = await stream({ 'last-event-id': connected.id ?? '' });
    const none = await current.next((m) => m.event === 'unleash-connected');
    expect(events(none)).toEqual([]);
    expect(none.id).toBeUndefined();
    current.close();

    // Not a number (as the SDK would never send): the same as none.
    const unknown = await stream({ 'last-event-id': 'abc' });
    expect(events(await unknown.next((m) => m.event === 'unleash-connected')).map((e) => e.type)).toEqual([
      'hydration',
    ]);
    unknown.close();
  });

  it('sends keep-alive comments at the configured interval', async () => {
    const s = await stream();
    await new Promise((r) => setTimeout(r, 500));
    expect(s.comments.filter((c) => c === 'keep-alive').length).toBeGreaterThanOrEqual(2);
    s.close();
  });

  it('answers 503 with a JSON error beyond STREAMING_MAX_CONNECTIONS', async () => {
    const held = await Promise.all(Array.from({ length: MAX }, () => stream()));
    for (const s of held) await s.next((m) => m.event === 'unleash-connected');
    const refused = await stream();
    expect(refused.status).toBe(503);
    await refused.ended;
    expect(JSON.parse(refused.text())).toMatchObject({
      id: expect.any(String),
      name: 'ServiceUnavailableError',
      message: expect.stringContaining('STREAMING_MAX_CONNECTIONS'),
    });
    for (const s of held) s.close();
    await Promise.all(held.map((s) => s.ended));
  });

  it('ends the stream when its token is deleted', async () => {
    const secret = await configSql(t).addToken('client', [project], ENV);
    const s = await admitted({}, secret);
    expect(s.status).toBe(200);
    await s.next((m) => m.event === 'unleash-connected');
    expect((await t.send('DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`)).statusCode).toBe(
      200,
    );
    const ended = await Promise.race([
      s.ended.then(() => true),
      new Promise((r) => setTimeout(r, 2000, false)),
    ]);
    expect(ended).toBe(true);
    const refused = await t.request({
      method: 'GET',
      url: '/api/client/streaming',
      headers: { authorization: secret },
    });
    expect(refused.statusCode).toBe(401);
  });

  it('ends open streams when the app closes, without waiting for them', async () => {
    const s = await admitted();
    await s.next((m) => m.event === 'unleash-connected');
    const started = Date.now();
    closed = true;
    await t.close();
    await s.ended;
    expect(Date.now() - started).toBeLessThan(3000);
  }, 60_000);
});
