import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * Issue 17, optimistic concurrency: the flag, an environment's variants and a strategy are served
 * with an ETag, and their writes honour If-Match (412 on a stale one, nothing changed, no event).
 * Read-modify-write clients without If-Match lose each other's changes, as in Unleash; with it, none.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const flagUrl = (flag: string) => `/api/admin/projects/default/features/${flag}`;
const variantsUrl = (flag: string) => `${flagUrl(flag)}/environments/development/variants`;
const strategiesUrl = (flag: string) => `${flagUrl(flag)}/environments/development/strategies`;
const variant = (name: string) => ({ name, weight: 0, weightType: 'variable', stickiness: 'default' });

async function ok(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const res = await t.send(method, url, payload, headers);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

const etag = (res: LightMyRequestResponse) => {
  const tag = res.headers.etag;
  expect(tag, 'an ETag header').toMatch(/^"[A-Za-z0-9_-]+"$/);
  return tag as string;
};

const maxEventId = async () =>
  Number((await t.database.session((run) => run('SELECT coalesce(max(id), 0) AS id FROM events')))[0]?.id);

async function newFlag() {
  const flag = uniqueName('etag');
  await ok('POST', '/api/admin/projects/default/features', { name: flag });
  return flag;
}

type VariantList = { variants: { name: string }[] };
const names = (res: LightMyRequestResponse) => (res.json() as VariantList).variants.map((v) => v.name).sort();

/** One read-modify-write client: GET the variants, add its own, PUT them back (If-Match or not). */
async function addVariant(
  flag: string,
  name: string,
  conditional: boolean,
  firstRead?: LightMyRequestResponse,
) {
  let read = firstRead ?? (await ok('GET', variantsUrl(flag)));
  for (let attempt = 1; attempt <= 100; attempt++) {
    const next = [...(read.json() as VariantList).variants, variant(name)];
    const res = await t.send('PUT', variantsUrl(flag), next, conditional ? { 'if-match': etag(read) } : {});
    if (res.statusCode === 200) return attempt;
    expect(res.statusCode, res.body).toBe(412);
    read = await ok('GET', variantsUrl(flag));
  }
  throw new Error(`${name} gave up`);
}

describe('read-modify-write of one environment by 20 clients (the issue scenario)', () => {
  const CLIENTS = Array.from({ length: 20 }, (_, i) => `client-${String(i).padStart(2, '0')}`);

  it('without If-Match, every PUT is acknowledged and all but one variant are lost', async () => {
    const flag = await newFlag();
    // All read before any writes (what happens when the clients start together), then all write.
    const reads = await Promise.all(CLIENTS.map(() => ok('GET', variantsUrl(flag))));
    const attempts = await Promise.all(CLIENTS.map((c, i) => addVariant(flag, c, false, reads[i])));
    expect(attempts.every((a) => a === 1)).toBe(true);
    const kept = names(await ok('GET', variantsUrl(flag)));
    // 20 acknowledged, 19 lost: each PUT wrote the list it read (empty) plus its own variant.
    expect(kept).toHaveLength(1);
  });

  it('with If-Match and a retry on 412, every acknowledged variant is kept', {
    timeout: 120_000,
  }, async () => {
    const flag = await newFlag();
    const before = await maxEventId();
    const reads = await Promise.all(CLIENTS.map(() => ok('GET', variantsUrl(flag))));
    const attempts = await Promise.all(CLIENTS.map((c, i) => addVariant(flag, c, true, reads[i])));
    expect(names(await ok('GET', variantsUrl(flag)))).toEqual(CLIENTS);
    // They did collide (all read the empty list): only one first attempt could win.
    expect(attempts.filter((a) => a === 1)).toHaveLength(1);
    // One event per acknowledged write, none for a refused one.
    const events = await t.database.session((run) =>
      run(
        `SELECT count(*)::int AS n FROM events WHERE id > $1 AND feature_name = $2
         AND type = 'feature-environment-variants-updated'`,
        [before, flag],
      ),
    );
    expect(Number(events[0]?.n)).toBe(CLIENTS.length);
  });

  it('of several writers holding one ETag at once, exactly one wins', async () => {
    const flag = await newFlag();
    const tag = etag(await ok('GET', variantsUrl(flag)));
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((n) =>
        t.send('PUT', variantsUrl(flag), [variant(n)], { 'if-match': tag }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 412, 412, 412, 412]);
  });
});

interface Route {
  name: string;
  /** Creates what the route works on; answers the URL to GET (the ETag) and the write to send. */
  setup: (flag: string) => Promise<{ read: string; method: string; url: string; payload?: unknown }>;
}

const ROUTES: Route[] = [
  {
    name: 'PUT flag',
    setup: async (flag) => ({
      read: flagUrl(flag),
      method: 'PUT',
      url: flagUrl(flag),
      payload: { description: 'new' },
    }),
  },
  {
    name: 'PATCH flag',
    setup: async (flag) => ({
      read: flagUrl(flag),
      method: 'PATCH',
      url: flagUrl(flag),
      payload: [{ op: 'replace', path: '/description', value: 'patched' }],
    }),
  },
  {
    name: 'PUT variants',
    setup: async (flag) => ({
      read: variantsUrl(flag),
      method: 'PUT',
      url: variantsUrl(flag),
      payload: [variant('x')],
    }),
  },
  {
    name: 'PATCH variants',
    setup: async (flag) => {
      await ok('PUT', variantsUrl(flag), [variant('y')]);
      return {
        read: variantsUrl(flag),
        method: 'PATCH',
        url: variantsUrl(flag),
        payload: [{ op: 'replace', path: '/0/stickiness', value: 'userId' }],
      };
    },
  },
  ...(['PUT', 'PATCH', 'DELETE'] as const).map((method) => ({
    name: `${method} strategy`,
    setup: async (flag: string) => {
      const id = (await ok('POST', strategiesUrl(flag), { name: 'default' })).json().id as string;
      const url = `${strategiesUrl(flag)}/${id}`;
      const payload =
        method === 'PUT'
          ? { name: 'default', title: 'put' }
          : method === 'PATCH'
            ? [{ op: 'replace', path: '/title', value: 'patched' }]
            : undefined;
      return { read: url, method, url, payload };
    },
  })),
];

/** A change to the resource behind `read` that moves its ETag (made without If-Match). */
async function changeBehind(flag: string, read: string) {
  if (read === flagUrl(flag))
    await ok('POST', `/api/admin/features/${flag}/tags`, { type: 'simple', value: 'v1' });
  else if (read === variantsUrl(flag)) await ok('PUT', variantsUrl(flag), [variant('other')]);
  else await ok('PUT', read, { name: 'default', title: 'changed meanwhile' });
}

describe.each(ROUTES)('$name', ({ setup }) => {
  it('answers 412 to a stale If-Match: nothing changes, no event', async () => {
    const flag = await newFlag();
    const { read, method, url, payload } = await setup(flag);
    const stale = etag(await ok('GET', read));
    await changeBehind(flag, read);
    const current = await ok('GET', read);
    expect(etag(current)).not.toBe(stale);
    const before = await maxEventId();

    const res = await t.send(method, url, payload, { 'if-match': stale });
    expect(res.statusCode, res.body).toBe(412);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'PreconditionFailedError',
      message: expect.any(String),
    });
    expect(await maxEventId()).toBe(before);
    const after = await ok('GET', read);
    expect(after.body).toBe(current.body);
    expect(etag(after)).toBe(etag(current));
  });

  it('succeeds with the current ETag (or *, or none) and serves the new one', async () => {
    const flag = await newFlag();
    const { read, method, url, payload } = await setup(flag);
    const tag = etag(await ok('GET', read));
    const res = await ok(method, url, payload, { 'if-match': `"other", ${tag}` });
    if (method === 'DELETE') {
      expect((await t.send('GET', read)).statusCode).toBe(404);
      return;
    }
    const now = await ok('GET', read);
    expect(etag(now)).not.toBe(tag);
    // The write's answer carries the ETag of what it wrote: a next conditional write can use it.
    expect(etag(res)).toBe(etag(now));
    expect((await t.send(method, url, payload, { 'if-match': '*' })).statusCode).toBe(200);
    expect((await t.send(method, url, payload)).statusCode).toBe(200);
  });
});

describe('the flag ETag', () => {
  it('changes with what the flag shows: a strategy, a variant, a toggle', async () => {
    const flag = await newFlag();
    const seen = new Set([etag(await ok('GET', flagUrl(flag)))]);
    await ok('POST', strategiesUrl(flag), { name: 'default' });
    seen.add(etag(await ok('GET', flagUrl(flag))));
    await ok('PUT', variantsUrl(flag), [variant('v')]);
    seen.add(etag(await ok('GET', flagUrl(flag))));
    await ok('POST', `${flagUrl(flag)}/environments/development/on`);
    seen.add(etag(await ok('GET', flagUrl(flag))));
    expect(seen.size).toBe(4);
    // Unchanged flag, same tag; a weak tag never matches If-Match.
    const tag = etag(await ok('GET', flagUrl(flag)));
    expect(seen.has(tag)).toBe(true);
    const weak = await t.send('PUT', flagUrl(flag), { description: 'w' }, { 'if-match': `W/${tag}` });
    expect(weak.statusCode).toBe(412);
  });
});
