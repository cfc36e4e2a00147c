import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const envUrl = (flag: string, env = 'development', project = 'default') =>
  `/api/admin/projects/${project}/features/${flag}/environments/${env}/variants`;
const flagUrl = (flag: string, project = 'default') =>
  `/api/admin/projects/${project}/features/${flag}/variants`;
const send = (method: 'GET' | 'PUT' | 'PATCH', url: string, payload?: unknown, headers = {}) =>
  t.request({ method, url, ...(payload !== undefined && { payload: payload as object }), headers });

async function newFlag() {
  const name = uniqueName();
  await a.createFlag('default', { name });
  return name;
}
const storedVariants = async (flag: string, env: string) =>
  (
    await t.database.session((run) =>
      run('SELECT variants FROM feature_environments WHERE feature_name = $1 AND environment = $2', [
        flag,
        env,
      ]),
    )
  )[0]?.variants;

const blue = { name: 'blue', weight: 0, weightType: 'variable', stickiness: 'default' };

describe('environment variants', () => {
  it('GET answers the empty list of a new flag', async () => {
    const flag = await newFlag();
    const res = await send('GET', envUrl(flag));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: 1, variants: [] });
  });

  it('PUT normalises, stores sorted by name, and records the event with the environment', async () => {
    const flag = await newFlag();
    const body = [
      { name: 'c', weight: 1 },
      {
        name: 'a',
        weight: 1,
        weightType: 'variable',
        stickiness: 'userId',
        payload: { type: 'json', value: '{"x":1}' },
      },
      {
        name: 'b',
        weight: 100,
        weightType: 'fix',
        overrides: [{ contextName: 'userId', values: ['u1'] }],
        extra: 1,
      },
    ];
    const res = await send('PUT', envUrl(flag), body);
    expect(res.statusCode).toBe(200);
    const expected = [
      {
        name: 'a',
        weight: 450,
        weightType: 'variable',
        stickiness: 'userId',
        payload: { type: 'json', value: '{"x":1}' },
      },
      {
        name: 'b',
        weight: 100,
        weightType: 'fix',
        stickiness: 'default',
        overrides: [{ contextName: 'userId', values: ['u1'] }],
      },
      { name: 'c', weight: 450, weightType: 'variable', stickiness: 'default' },
    ];
    expect(res.json()).toEqual({ version: 1, variants: expected });
    expect(await storedVariants(flag, 'development')).toEqual(expected);
    expect(await storedVariants(flag, 'production')).toEqual([]);
    expect((await send('GET', envUrl(flag))).json().variants).toEqual(expected);
    const { events } = await a.flagEvents(flag);
    expect(events[0]).toMatchObject({
      type: 'feature-environment-variants-updated',
      environment: 'development',
      project: 'default',
      data: { variants: expected },
      preData: { variants: [] },
    });
    // The flag view shows them too.
    const env = (await a.getFlag('default', flag)).json().environments[0];
    expect(env).toMatchObject({ variantCount: 3, variants: expected });
  });

  it('PUT with docs/evaluation.md §15 example 10 gives c the remainder', async () => {
    const flag = await newFlag();
    const res = await send(
      'PUT',
      envUrl(flag),
      ['c', 'a', 'b'].map((name) => ({ name, weight: 0 })),
    );
    expect(res.json().variants.map((v: { name: string; weight: number }) => [v.name, v.weight])).toEqual([
      ['a', 333],
      ['b', 333],
      ['c', 334],
    ]);
  });

  it.each([
    ['a duplicate name', [blue, blue], '/body/1/name'],
    ['a weight above 1000', [{ ...blue, weight: 1001 }], '/body/0/weight'],
    ['a negative weight', [{ ...blue, weight: -1 }], '/body/0/weight'],
    ['an unknown weightType', [{ ...blue, weightType: 'fixed' }], '/body/0/weightType'],
    [
      'an invalid json payload',
      [{ ...blue, payload: { type: 'json', value: '{nope' } }],
      '/body/0/payload/value',
    ],
    [
      'an unknown payload type',
      [{ ...blue, payload: { type: 'xml', value: '<a/>' } }],
      '/body/0/payload/type',
    ],
    ['a non-string stickiness', [{ ...blue, stickiness: 5 }], '/body/0/stickiness'],
    [
      'overrides without values',
      [{ ...blue, overrides: [{ contextName: 'userId' }] }],
      '/body/0/overrides/0/values',
    ],
    [
      'fixed weights over 1000',
      [{ name: 'x', weight: 600, weightType: 'fix' }, { name: 'y', weight: 401, weightType: 'fix' }, blue],
      '/body',
    ],
    ['only fixed variants', [{ name: 'x', weight: 1000, weightType: 'fix' }], '/body'],
    ['a body that is not an array', { name: 'x' }, '/body'],
  ])('PUT refuses %s with 400 and changes nothing', async (_label, body, path) => {
    const flag = await newFlag();
    const res = await send('PUT', envUrl(flag), body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await storedVariants(flag, 'development')).toEqual([]);
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(0);
  });

  it.each([
    ['an unknown flag', 'no-such-flag', 'development', 'default'],
    ['a flag of another project', 'FLAG', 'development', 'other-project'],
    ['an unknown environment', 'FLAG', 'nope', 'default'],
  ])('answers 404 for %s (GET, PUT and PATCH)', async (_label, flagName, env, project) => {
    const flag = flagName === 'FLAG' ? await newFlag() : flagName;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', [blue]],
      ['PATCH', []],
    ] as const) {
      const res = await send(method, envUrl(flag, env, project), body);
      expect(res.statusCode).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
    }
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(0);
  });

  it('answers 401 without a token', async () => {
    const flag = await newFlag();
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', [blue]],
      ['PATCH', []],
    ] as const) {
      const res = await send(method, envUrl(flag), body, { authorization: undefined });
      expect(res.statusCode).toBe(401);
      expect(res.json().name).toBe('AuthenticationRequired');
    }
  });

  it('PATCH applies a JSON Patch, renormalises, and records the event', async () => {
    const flag = await newFlag();
    await send('PUT', envUrl(flag), [blue]);
    const res = await send('PATCH', envUrl(flag), [
      { op: 'add', path: '/-', value: { name: 'aqua', weight: 0 } },
      { op: 'replace', path: '/0/stickiness', value: 'userId' },
      { op: 'test', path: '/0/name', value: 'blue' },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json().variants).toEqual([
      { name: 'aqua', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'userId' },
    ]);
    const { events } = await a.flagEvents(flag);
    expect(events[0]).toMatchObject({
      type: 'feature-environment-variants-updated',
      preData: { variants: [{ ...blue, weight: 1000 }] },
    });
  });

  it.each([
    ['a failing test operation', [{ op: 'test', path: '/0/name', value: 'red' }], '/body/0'],
    ['a missing path', [{ op: 'remove', path: '/5' }], '/body/0'],
    ['an unknown op', [{ op: 'merge', path: '/0' }], '/body/0/op'],
    [
      'a result with a weight above 1000',
      [{ op: 'replace', path: '/0/weight', value: 5000 }],
      '/body/0/weight',
    ],
    ['a result that is not an array', [{ op: 'replace', path: '', value: { a: 1 } }], '/body'],
    ['a result with a duplicate name', [{ op: 'copy', from: '/0', path: '/-' }], '/body/1/name'],
  ])('PATCH refuses %s with 400 and changes nothing', async (_label, patch, path) => {
    const flag = await newFlag();
    await send('PUT', envUrl(flag), [blue]);
    const res = await send('PATCH', envUrl(flag), patch);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await storedVariants(flag, 'development')).toEqual([{ ...blue, weight: 1000 }]);
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(1);
  });
});

describe('PUT …/variants-batch', () => {
  it('writes the variants to each listed environment with one event each', async () => {
    const flag = await newFlag();
    const res = await send('PUT', `/api/admin/projects/default/features/${flag}/variants-batch`, {
      variants: [blue],
      environments: ['development', 'production'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: 1, variants: [{ ...blue, weight: 1000 }] });
    expect(await storedVariants(flag, 'production')).toEqual([{ ...blue, weight: 1000 }]);
    const events = (await a.flagEvents(flag)).events.filter(
      (e) => e.type === 'feature-environment-variants-updated',
    );
    expect(events.map((e) => (e as unknown as { environment: string }).environment).sort()).toEqual([
      'development',
      'production',
    ]);
  });

  it('refuses an unknown environment with 404 and writes nothing', async () => {
    const flag = await newFlag();
    const res = await send('PUT', `/api/admin/projects/default/features/${flag}/variants-batch`, {
      variants: [blue],
      environments: ['development', 'nope'],
    });
    expect(res.statusCode).toBe(404);
    expect(await storedVariants(flag, 'development')).toEqual([]);
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(0);
  });

  it('refuses bad variants with 400 naming /body/variants', async () => {
    const flag = await newFlag();
    const res = await send('PUT', `/api/admin/projects/default/features/${flag}/variants-batch`, {
      variants: [blue, blue],
      environments: ['development'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('/body/variants/1/name');
  });
});

describe('flag-level variants (deprecated)', () => {
  it('PUT writes every environment and records feature-variants-updated once; GET reads them', async () => {
    const flag = await newFlag();
    const res = await send('PUT', flagUrl(flag), [blue, { name: 'red', weight: 200, weightType: 'fix' }]);
    expect(res.statusCode).toBe(200);
    const expected = [
      { ...blue, weight: 800 },
      { name: 'red', weight: 200, weightType: 'fix', stickiness: 'default' },
    ];
    expect(res.json()).toEqual({ version: 1, variants: expected });
    expect(await storedVariants(flag, 'development')).toEqual(expected);
    expect(await storedVariants(flag, 'production')).toEqual(expected);
    expect((await send('GET', flagUrl(flag))).json()).toEqual({ version: 1, variants: expected });
    const events = (await a.flagEvents(flag)).events.filter((e) => e.type.includes('variants'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'feature-variants-updated',
      data: { variants: expected },
      preData: { variants: [] },
    });
  });

  it('PATCH patches and writes every environment', async () => {
    const flag = await newFlag();
    await send('PUT', flagUrl(flag), [blue]);
    const res = await send('PATCH', flagUrl(flag), [{ op: 'remove', path: '/0' }]);
    expect(res.statusCode).toBe(200);
    expect(res.json().variants).toEqual([]);
    expect(await storedVariants(flag, 'production')).toEqual([]);
  });

  it('refuses 400/404/401 and changes nothing', async () => {
    const flag = await newFlag();
    expect((await send('PUT', flagUrl(flag), [blue, blue])).statusCode).toBe(400);
    expect((await send('PATCH', flagUrl(flag), [{ op: 'remove', path: '/0' }])).statusCode).toBe(400);
    expect((await send('PUT', flagUrl('no-such-flag'), [blue])).statusCode).toBe(404);
    expect((await send('GET', flagUrl(flag, 'other'))).statusCode).toBe(404);
    expect((await send('PUT', flagUrl(flag), [blue], { authorization: undefined })).statusCode).toBe(401);
    expect(await storedVariants(flag, 'development')).toEqual([]);
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(0);
  });
});

describe('an archived flag', () => {
  it('refuses every variant write with 400 and writes nothing; reads still answer', async () => {
    const flag = await newFlag();
    expect((await send('PUT', envUrl(flag), [blue])).statusCode).toBe(200);
    const archive = await t.request({
      method: 'DELETE',
      url: `/api/admin/projects/default/features/${flag}`,
    });
    expect(archive.statusCode).toBe(202);
    const batch = `/api/admin/projects/default/features/${flag}/variants-batch`;
    const writes = [
      await send('PUT', envUrl(flag), [{ ...blue, name: 'red' }]),
      await send('PATCH', envUrl(flag), [{ op: 'remove', path: '/0' }]),
      await send('PUT', batch, { variants: [blue], environments: ['production'] }),
      await send('PUT', flagUrl(flag), [blue]),
      await send('PATCH', flagUrl(flag), [{ op: 'remove', path: '/0' }]),
    ];
    for (const res of writes) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        name: 'ValidationError',
        message: expect.stringContaining('archived'),
      });
    }
    expect(await storedVariants(flag, 'development')).toMatchObject([{ name: 'blue' }]);
    expect(await storedVariants(flag, 'production')).toEqual([]);
    expect(await a.count('events', 'feature_name = $1 AND type LIKE $2', [flag, '%variants%'])).toBe(1);
    expect((await send('GET', envUrl(flag))).statusCode).toBe(200);
  });
});
