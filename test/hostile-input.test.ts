import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from './harness.js';
import { rawRequest } from './http.js';

// Nothing a client sends may produce a 500, and a rejected request changes nothing.
let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const FEATURES = '/api/admin/projects/default/features';
const post = (payload: unknown, headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'POST', url: FEATURES, payload: payload as string, headers });
/** Sends the text as it is, declared as JSON. */
const postJson = (text: string, headers: Record<string, string | undefined> = {}) =>
  post(text, { 'content-type': 'application/json', ...headers });

/** The status, and the JSON error body every failure must carry. */
function expectError(res: LightMyRequestResponse, status: number, name: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(body).toMatchObject({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    name,
    message: expect.any(String),
  });
  return body as { details?: { path?: string; message: string }[] };
}

/** Runs a request that must be refused and proves that no flag and no event was stored. */
async function refusedAndNothingStored(
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  name: string,
) {
  const [flags, events] = [await a.count('features'), await a.count('events')];
  const body = expectError(await send(), status, name);
  expect(await a.count('features')).toBe(flags);
  expect(await a.count('events')).toBe(events);
  return body;
}
const invalid = (send: () => Promise<LightMyRequestResponse>) =>
  refusedAndNothingStored(send, 400, 'ValidationError');
const unsupported = (send: () => Promise<LightMyRequestResponse>) =>
  refusedAndNothingStored(send, 415, 'ContentTypeerror');
const unauthenticated = (send: () => Promise<LightMyRequestResponse>) =>
  refusedAndNothingStored(send, 401, 'AuthenticationRequired');

const paths = (body: { details?: { path?: string }[] }) => (body.details ?? []).map((d) => d.path).sort();

describe('bodies that are not JSON objects', () => {
  it('answers 400 for malformed JSON and for an empty JSON body', async () => {
    for (const text of [
      '{"name": "x"',
      '{name: "x"}',
      "{'name':'x'}",
      'nul',
      '{"name":"x"}}',
      '',
      '[]',
      'null',
    ]) {
      await invalid(() => postJson(text));
    }
  });

  it('answers 415 ContentTypeerror for a body without Content-Type, as text or as a form', async () => {
    const body = JSON.stringify({ name: uniqueName() });
    for (const contentType of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'text/json']) {
      await unsupported(() => post(body, { 'content-type': contentType }));
    }
    const name = uniqueName();
    await a.createFlag('default', { name });
    const put = await t.request({ method: 'PUT', url: `${FEATURES}/${name}`, payload: '{"stale":true}' });
    expectError(put, 415, 'ContentTypeerror');
    expect((await a.getFlag('default', name)).json().stale).toBe(false);
  });

  it('accepts application/json; charset=utf-8', async () => {
    const name = uniqueName();
    const res = await post(JSON.stringify({ name }), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(200);
    expect(await a.count('features', 'name = $1', [name])).toBe(1);
  });

  it('answers 413 PayloadTooLargeError above BODY_LIMIT and stores nothing', async () => {
    const small = await startTestApp({ config: { BODY_LIMIT: 2048 } });
    try {
      const name = uniqueName();
      const send = (description: string) =>
        small.request({ method: 'POST', url: FEATURES, payload: { name, description } });
      expectError(await send('x'.repeat(4096)), 413, 'PayloadTooLargeError');
      expect(await api(small).count('features', 'name = $1', [name])).toBe(0);
      expect((await send('fits')).statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });

  // The default BODY_LIMIT (1 MiB) is large enough for every one of these bodies.
  it('answers 4xx for JSON nested 100,000 levels deep and keeps serving', async () => {
    const depth = 100_000;
    const nested = [
      `${'['.repeat(depth)}${']'.repeat(depth)}`,
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      `{"name":"${uniqueName()}","type":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
    ];
    for (const payload of nested) {
      expect(payload.length).toBeLessThan(1_048_576);
      const res = await postJson(payload);
      expect(res.statusCode, res.body.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json().name).toBe('ValidationError');
    }
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('JSON that tries to pollute prototypes', () => {
  it.each([
    ['__proto__', '{"name":"proto-a","__proto__":{"polluted":"yes"}}'],
    [
      'nested __proto__',
      '{"name":"proto-b","tags":[{"type":"simple","value":"ab","__proto__":{"polluted":1}}]}',
    ],
    ['constructor.prototype', '{"name":"proto-c","constructor":{"prototype":{"polluted":"yes"}}}'],
  ])('refuses %s with 400 and pollutes nothing', async (_label, payload) => {
    await invalid(() => postJson(payload));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('field values', () => {
  it('refuses NUL characters in name, description and tag values (400, nothing stored)', async () => {
    for (const body of [
      { name: `nul\u0000name` },
      { name: uniqueName(), description: 'before\u0000after' },
      { name: uniqueName(), tags: [{ type: 'simple', value: 'a\u0000b' }] },
    ]) {
      await invalid(() => post(body));
    }
    const name = uniqueName();
    await a.createFlag('default', { name, description: 'keep' });
    expectError(await a.updateFlag('default', name, { description: 'x\u0000y' }), 400, 'ValidationError');
    expect((await a.getFlag('default', name)).json().description).toBe('keep');
    expect((await a.flagEvents(name)).totalEvents).toBe(1);
  });

  it('never answers 500 to a lone UTF-16 surrogate', async () => {
    for (const payload of [
      '{"name":"\\ud800x"}',
      `{"name":"${uniqueName()}","description":"\\udc00 x \\ud800"}`,
    ]) {
      const res = await postJson(payload);
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
  });

  it('refuses over-long strings and accepts the longest allowed', async () => {
    const long = 'z'.repeat(500_000);
    for (const body of [
      { name: long },
      { name: uniqueName(), description: 'd'.repeat(10_001) },
      { name: uniqueName(), description: long },
      { name: uniqueName(), tags: [{ type: 'simple', value: 'v'.repeat(51) }] },
      { name: uniqueName(), tags: [{ type: long, value: 'abc' }] },
    ]) {
      await invalid(() => post(body));
    }
    expect((await post({ name: uniqueName(), description: 'd'.repeat(10_000) })).statusCode).toBe(200);
  });

  it('refuses wrong types without coercion, naming every failing field', async () => {
    const create = await invalid(() =>
      post({ name: 123, impressionData: 'true', description: false, tags: 'simple' }),
    );
    expect(paths(create)).toEqual(['/body/description', '/body/impressionData', '/body/name', '/body/tags']);

    const name = uniqueName();
    await a.createFlag('default', { name });
    const update = expectError(
      await a.updateFlag('default', name, { stale: 1, archived: 'false', impressionData: 0, type: 7 }),
      400,
      'ValidationError',
    );
    expect(paths(update)).toEqual(['/body/archived', '/body/impressionData', '/body/stale', '/body/type']);
    expect((await a.getFlag('default', name)).json()).toMatchObject({ stale: false, archived: false });
  });

  it('refuses an unknown enum value, listing the allowed ones', async () => {
    const body = await invalid(() => post({ name: uniqueName(), type: 'banana' }));
    expect(body.details).toEqual([expect.objectContaining({ path: '/body/type' })]);
    expect(body.details?.[0]?.message).toContain('"kill-switch"');
  });

  it('refuses arrays and objects where strings belong', async () => {
    for (const [body, path] of [
      [{ name: ['a', 'b'] }, '/body/name'],
      [{ name: { first: 'a' } }, '/body/name'],
      [{ name: uniqueName(), description: ['x'] }, '/body/description'],
      [{ name: uniqueName(), type: ['release'] }, '/body/type'],
      [{ name: uniqueName(), tags: [{ type: ['simple'], value: 'ab' }] }, '/body/tags/0/type'],
      [{ name: uniqueName(), tags: [{ type: 'simple', value: { v: 'ab' } }] }, '/body/tags/0/value'],
    ] as const) {
      expect(paths(await invalid(() => post(body)))).toContain(path);
    }
  });

  it.each([
    ['café'],
    ['🚀-launch'],
    ['zero\u200bwidth'],
    ['ｆｕｌｌ'],
    ['שלום'],
    ['a%20b'],
    ['a#b'],
    ['a?b'],
  ])('refuses the non-URL-safe name %j', async (name) => {
    expect(paths(await invalid(() => post({ name })))).toEqual(['/body/name']);
  });
});

describe('paths', () => {
  it.each([[`${FEATURES}/%E0%A4%A`], ['/api/admin/events/%ZZ'], [`${FEATURES}/%`]])(
    'answers 400 JSON for the malformed percent-escape in %s',
    async (url) => {
      expectError(await t.request({ method: 'GET', url }), 400, 'ValidationError');
    },
  );

  it('answers 404 NotFoundError JSON for unknown routes, with or without a token', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/nope'],
      ['POST', '/api/admin/nope'],
      ['GET', '/nope'],
      ['POST', '/nope/deeper'],
      ['DELETE', FEATURES],
    ] as const) {
      const res = await t.request({ method, url, ...(method === 'POST' && { payload: { name: 'x' } }) });
      expectError(res, 404, 'NotFoundError');
      const anonymous = await t.request({ method, url, headers: { authorization: undefined } });
      expectError(anonymous, 404, 'NotFoundError');
    }
  });

  it('answers 400 for a path parameter over 100 characters, also far above the router limit', async () => {
    expectError(await a.getFlag('default', 'p'.repeat(101)), 400, 'ValidationError');
    expectError(await a.getFlag('default', 'p'.repeat(5_000)), 400, 'ValidationError');
  });
});

describe('authentication comes first', () => {
  it('answers 401 to a missing or unknown token whatever the body', async () => {
    const none = { authorization: undefined };
    await unauthenticated(() => post({ name: 5 }, none));
    await unauthenticated(() => postJson('{bad json', none));
    await unauthenticated(() => post('name=x', { ...none, 'content-type': 'text/plain' }));
    for (const authorization of ['*:*.unknown-token', 'Bearer *:*.unknown-token', 'Bearer ', '   ']) {
      await unauthenticated(() => post({ name: uniqueName() }, { authorization }));
    }
  });

  it("accepts the token as 'Bearer <token>'", async () => {
    const name = uniqueName();
    const res = await post({ name }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(await a.count('features', 'name = $1', [name])).toBe(1);
  });
});

describe('a real listening server', () => {
  beforeAll(() => t.app.listen({ port: 0, host: '127.0.0.1' }));

  it('answers 431 with a JSON body to oversized headers', async () => {
    const res = await rawRequest(
      t.app,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body).toMatchObject({
      name: 'HeadersTooLargeError',
      id: expect.any(String),
      message: expect.any(String),
    });
  });

  it('answers 400 with a JSON body to a garbage request line', async () => {
    for (const garbage of [
      'HELLO THERE\r\n\r\n',
      '\u0000\u0001 / HTTP/1.1\r\n\r\n',
      'GET / HTTP/9.9.9\r\n\r\n',
    ]) {
      const res = await rawRequest(t.app, garbage);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ name: 'ValidationError', id: expect.any(String) });
    }
  });

  it('is still healthy after all of the above', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ health: 'GOOD' });
  });
});
