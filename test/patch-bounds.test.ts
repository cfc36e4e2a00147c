import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { asUser, createUser, login } from './people.js';

// Issue 43, findings 1 and 5: a JSON Patch that doubles its document, and bodies nested deep
// enough to overflow the call stack, are refused with a 400 before they cost anything.

let t: TestApp;
let a: ReturnType<typeof api>;
let editor: Record<string, string | undefined>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
  const user = await createUser(t, 'Editor');
  editor = asUser(await login(t, user.username));
});
afterAll(() => t.close());

const flagUrl = (name: string) => `/api/admin/projects/default/features/${name}`;
const envUrl = (name: string) => `${flagUrl(name)}/environments/development`;

const newestEventId = async () =>
  Number(
    (await t.database.session((run) => run('SELECT coalesce(max(id), 0)::int AS id FROM events')))[0]?.id,
  );

/** 40 copies of the whole document into itself: each doubles it (the 1.3 KB request). */
const doublingObject = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `/k${i}` }));
const doublingArray = Array.from({ length: 40 }, () => ({ op: 'copy', from: '', path: '/-' }));

/** A value `levels` containers deep: {a: {a: … {} }}, built without recursion. */
const nested = (levels: number) => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

/**
 * The JSON text of `body` with `"DEEP"` replaced by 10,000 nested objects: written as text, since
 * `JSON.stringify` (and so `t.send`) overflows on a value that deep.
 */
const deepBody = (body: unknown) =>
  JSON.stringify(body).replace('"DEEP"', `${'{"a":'.repeat(9_999)}{}${'}'.repeat(9_999)}`);

const postText = (url: string, text: string) =>
  t.request({ method: 'POST', url, payload: text, headers: { 'content-type': 'application/json' } });

async function newFlag() {
  const name = uniqueName();
  await a.createFlag('default', { name });
  return name;
}

/** Sends the patch as an Editor and checks the refusal: a quick 400, /health alive, nothing changed. */
async function expectRefused(url: string, readBack: string, patch: unknown[], pattern: RegExp) {
  const before = (await t.send('GET', readBack)).json();
  const lastEvent = await newestEventId();
  const started = performance.now();
  const res = await t.request({ method: 'PATCH', url, payload: patch, headers: editor });
  // Unbounded, 21 such operations took 25 s and 40 ran out of memory; bounded, it is milliseconds.
  expect(performance.now() - started).toBeLessThan(5000);
  expect(res.statusCode).toBe(400);
  expect(res.json()).toMatchObject({ id: expect.any(String), name: 'ValidationError' });
  expect(res.json().message).toMatch(pattern);
  expect((await t.send('GET', '/health')).statusCode).toBe(200);
  expect((await t.send('GET', readBack)).json()).toEqual(before);
  expect(await newestEventId()).toBe(lastEvent);
}

describe('a doubling JSON Patch (finding 1)', () => {
  it('on a flag: 400, the flag and the event log unchanged', async () => {
    const name = await newFlag();
    await expectRefused(flagUrl(name), flagUrl(name), doublingObject, /more than 1048576 characters/);
  });

  it('on a strategy: 400, the strategy and the event log unchanged', async () => {
    const name = await newFlag();
    const added = await t.send('POST', `${envUrl(name)}/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: name },
    });
    const url = `${envUrl(name)}/strategies/${added.json().id}`;
    await expectRefused(url, url, doublingObject, /more than 1048576 characters/);
  });

  it('on variants, per environment and flag-wide: 400, the variants and the event log unchanged', async () => {
    const name = await newFlag();
    const put = await t.send('PUT', `${envUrl(name)}/variants`, [
      { name: 'blue', weight: 500, payload: { type: 'string', value: 'b' } },
      { name: 'red', weight: 500 },
    ]);
    expect(put.statusCode).toBe(200);
    await expectRefused(
      `${envUrl(name)}/variants`,
      `${envUrl(name)}/variants`,
      doublingArray,
      /more than 1048576 characters/,
    );
    await expectRefused(
      `${flagUrl(name)}/variants`,
      `${flagUrl(name)}/variants`,
      doublingArray,
      /more than 1048576 characters/,
    );
  });

  it('that nests a flag deeper and deeper by copying it into one key: 400 at the depth bound', async () => {
    const name = await newFlag();
    const patch = Array.from({ length: 1000 }, () => ({ op: 'copy', from: '', path: '/description' }));
    await expectRefused(flagUrl(name), flagUrl(name), patch, /deeper than 64 levels/);
  });
});

describe('patches of realistic size still apply', () => {
  it('100 variants with 2 KB json payloads, one copied and renamed', async () => {
    const name = await newFlag();
    const payload = JSON.stringify({ text: 'x'.repeat(2000) });
    const patch: unknown[] = Array.from({ length: 100 }, (_, i) => ({
      op: 'add',
      path: '/-',
      value: { name: `v${i}`, weight: 10, payload: { type: 'json', value: payload } },
    }));
    patch.push({ op: 'copy', from: '/0', path: '/-' }, { op: 'replace', path: '/100/name', value: 'copy' });
    const res = await t.request({
      method: 'PATCH',
      url: `${envUrl(name)}/variants`,
      payload: patch,
      headers: editor,
    });
    expect(res.statusCode).toBe(200);
    const variants = res.json().variants as { name: string; payload: { value: string } }[];
    expect(variants).toHaveLength(101);
    expect(variants.find((v) => v.name === 'copy')).toMatchObject({
      name: 'copy',
      payload: { value: payload },
    });
  });

  it('a strategy given a constraint of 500 values', async () => {
    const name = await newFlag();
    const added = await t.send('POST', `${envUrl(name)}/strategies`, { name: 'default' });
    const values = Array.from({ length: 500 }, (_, i) => `user-${i}`);
    const res = await t.request({
      method: 'PATCH',
      url: `${envUrl(name)}/strategies/${added.json().id}`,
      payload: [
        { op: 'add', path: '/constraints/-', value: { contextName: 'userId', operator: 'IN', values } },
      ],
      headers: editor,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().constraints[0].values).toHaveLength(500);
  });
});

describe('deeply nested bodies (finding 5)', () => {
  const expectDepthRefusal = (res: { statusCode: number; json: () => Record<string, unknown> }) => {
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      id: expect.any(String),
      name: 'ValidationError',
      message: 'The body is nested deeper than 64 levels.',
    });
  };

  it('10,000 levels of addon parameters: 400, no addon created', async () => {
    const before = await a.count('addons');
    const res = await postText(
      '/api/admin/addons',
      deepBody({
        provider: 'webhook',
        enabled: true,
        parameters: { url: 'https://hooks.example.com/x', extra: 'DEEP' },
        events: ['feature-created'],
      }),
    );
    expectDepthRefusal(res);
    expect(await a.count('addons')).toBe(before);
  });

  it('10,000 levels on a flag create and inside a patch value: 400, nothing created or changed', async () => {
    const name = uniqueName();
    expectDepthRefusal(
      await postText('/api/admin/projects/default/features', deepBody({ name, description: 'DEEP' })),
    );
    expect((await a.getFlag('default', name)).statusCode).toBe(404);
    const existing = await newFlag();
    const lastEvent = await newestEventId();
    expectDepthRefusal(
      await t.request({
        method: 'PATCH',
        url: flagUrl(existing),
        payload: [{ op: 'add', path: '/description', value: nested(100) }],
        headers: editor,
      }),
    );
    expect(await newestEventId()).toBe(lastEvent);
  });

  it('64 levels pass the body check (and meet the route schema)', async () => {
    const res = await t.send('POST', '/api/admin/projects/default/features', {
      name: uniqueName(),
      description: nested(63),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).not.toMatch(/nested deeper/);
  });

  it('a YAML import nested 100 levels: 400', async () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/features-batch/validate',
      payload: `project: default\nenvironment: development\ndata:\n  features:\n    - ${deep}\n`,
      headers: { 'content-type': 'application/yaml' },
    });
    expectDepthRefusal(res);
  });
});

describe('YAML bodies', () => {
  /** "Billion laughs": nine levels of nine aliases each, 9^9 strings once expanded. */
  const laughs = () => {
    const lines = ['a0: &a0 "lol"'];
    for (let i = 1; i <= 9; i++) {
      lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
    }
    return `${lines.join('\n')}\nproject: default\nenvironment: development\ndata: *a9\n`;
  };

  it('an alias bomb on the import is refused with 400 at once, /health still answers', async () => {
    const started = performance.now();
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/features-batch/validate',
      payload: laughs(),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ id: expect.any(String), name: 'ValidationError' });
    expect(res.json().message).toMatch(/not a valid YAML document.*alias/i);
    expect((await t.send('GET', '/health')).statusCode).toBe(200);
  });

  it('the same on the state import', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/state/import',
      payload: laughs(),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/alias/i);
  });
});
