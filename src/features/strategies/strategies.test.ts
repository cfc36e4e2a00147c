import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { withDatabase } from '../../../test/global-setup.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const base = (flag: string, env = 'development', project = 'default') =>
  `/api/admin/projects/${project}/features/${flag}/environments/${env}`;
const post = (url: string, payload?: unknown, headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'POST', url, headers, ...(payload !== undefined && { payload: payload as object }) });
const newFlag = async () => {
  const name = uniqueName();
  await a.createFlag('default', { name });
  return name;
};
const addStrategy = async (flag: string, body: unknown, env = 'development') => {
  const res = await post(`${base(flag, env)}/strategies`, body);
  if (res.statusCode !== 200) throw new Error(`addStrategy ${res.statusCode}: ${res.body}`);
  return res.json();
};
const createSegment = async () => {
  const res = await post('/api/admin/segments', { name: uniqueName('seg'), constraints: [] });
  if (res.statusCode !== 201) throw new Error(`createSegment ${res.statusCode}: ${res.body}`);
  return res.json().id as number;
};
const types = async (flag: string) => (await a.flagEvents(flag)).events.map((e) => e.type);
const countStrategies = (flag: string) => a.count('feature_strategies', 'feature_name = $1', [flag]);

describe.runIf(process.env.TEST_ENGINE === 'postgres')('on, while another change holds the flag', () => {
  /**
   * Another session holds the flag's row (the lock order of every writer), runs `statements`,
   * and commits only once the toggle waits (a lock wait seen from outside) or after 2 s; the
   * toggle must then act on what that change left, as it would have without the wait.
   */
  async function toggleWhileHeld(flag: string, url: string, statements: [string, unknown[]][]) {
    const [row] = await t.database.session((run) => run('SELECT current_database() AS db'));
    const client = new pg.Client({
      connectionString: withDatabase(process.env.TEST_DATABASE_URL!, String(row?.db)),
    });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT name FROM features WHERE name = $1 FOR UPDATE', [flag]);
      for (const [text, values] of statements) await client.query(text, values);
      const on = post(url);
      let waited = false;
      for (let i = 0; i < 200 && !waited; i++) {
        const waiting = await client.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        waited = (waiting.rowCount ?? 0) > 0;
        if (!waited) await new Promise((r) => setTimeout(r, 10));
      }
      await client.query('COMMIT');
      expect((await on).statusCode).toBe(200);
      expect(waited, 'the toggle waited for the held row').toBe(true);
    } finally {
      await client.end();
    }
  }

  it('counts the strategies as that change left them', async () => {
    // The change disables the flag's only strategy: turning on must add the default one.
    const flag = await newFlag();
    await addStrategy(flag, { name: 'default' });
    await toggleWhileHeld(flag, `${base(flag)}/on`, [
      ['UPDATE feature_strategies SET disabled = true WHERE feature_name = $1', [flag]],
    ]);
    const dev = (await a.getFlag('default', flag)).json().environments[0];
    expect(dev.enabled).toBe(true);
    expect(dev.strategies.map((s: { name: string; disabled: boolean }) => [s.name, s.disabled])).toEqual([
      ['default', true],
      ['flexibleRollout', false],
    ]);
    expect((await types(flag)).slice(0, 2)).toEqual(['feature-environment-enabled', 'feature-strategy-add']);
  });

  it('enters no stage before one that change entered', async () => {
    // The change completes the flag: turning it on in production then enters neither pre-live
    // nor live.
    const flag = await newFlag();
    await addStrategy(flag, { name: 'default' }, 'production');
    await toggleWhileHeld(flag, `${base(flag, 'production')}/on`, [
      [`INSERT INTO feature_lifecycles (feature_name, stage) VALUES ($1, 'completed')`, [flag]],
    ]);
    const stages = (
      await t.request({ method: 'GET', url: `/api/admin/projects/default/features/${flag}/lifecycle` })
    ).json() as { stage: string }[];
    expect(stages.map((s) => s.stage)).toEqual(['initial', 'completed']);
    const view = (await a.getFlag('default', flag)).json();
    expect(view.environments[1].enabled).toBe(true);
    expect(view.lifecycle.stage).toBe('completed');
  });

  it('tags its event with the tags that change added', async () => {
    const flag = await newFlag();
    await addStrategy(flag, { name: 'default' });
    await toggleWhileHeld(flag, `${base(flag)}/on`, [
      [`INSERT INTO tags (type, value) VALUES ('simple', 'held') ON CONFLICT DO NOTHING`, []],
      [`INSERT INTO feature_tag (feature_name, tag_type, tag_value) VALUES ($1, 'simple', 'held')`, [flag]],
    ]);
    const [event] = (await a.flagEvents(flag)).events;
    expect(event).toMatchObject({
      type: 'feature-environment-enabled',
      tags: [{ type: 'simple', value: 'held' }],
    });
  });
});

describe('POST …/strategies', () => {
  it('adds a strategy, answers it and records feature-strategy-add', async () => {
    const flag = await newFlag();
    const segment = await createSegment();
    const body = {
      name: 'flexibleRollout',
      title: 'Half',
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'g1' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'], inverted: false }],
      segments: [segment],
      variants: [
        { name: 'b', weight: 0, weightType: 'variable', stickiness: 'default' },
        {
          name: 'a',
          weight: 200,
          weightType: 'fix',
          stickiness: 'default',
          payload: { type: 'json', value: '{"x":1}' },
        },
      ],
    };
    const s = await addStrategy(flag, body);
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s).toEqual({
      id: s.id,
      name: 'flexibleRollout',
      title: 'Half',
      disabled: false,
      featureName: flag,
      sortOrder: 0,
      segments: [segment],
      constraints: [
        { contextName: 'appName', operator: 'IN', values: ['web'], inverted: false, caseInsensitive: false },
      ],
      variants: [
        {
          name: 'a',
          weight: 200,
          weightType: 'fix',
          stickiness: 'default',
          payload: { type: 'json', value: '{"x":1}' },
        },
        { name: 'b', weight: 800, weightType: 'variable', stickiness: 'default' },
      ],
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'g1' },
    });
    const [event] = (await a.flagEvents(flag)).events;
    expect(event).toMatchObject({
      type: 'feature-strategy-add',
      data: s,
      preData: null,
      environment: 'development',
    });
    const flagView = (await a.getFlag('default', flag)).json();
    expect(flagView.environments[0].strategies).toEqual([s]);
    const second = await addStrategy(flag, { name: 'default' });
    expect(second).toMatchObject({
      sortOrder: 1,
      parameters: {},
      constraints: [],
      segments: [],
      title: null,
    });
    const list = await t.request({ method: 'GET', url: `${base(flag)}/strategies` });
    expect(list.json().map((x: { id: string }) => x.id)).toEqual([s.id, second.id]);
  });

  it('fills groupId and stickiness of a flexibleRollout', async () => {
    const flag = await newFlag();
    const s = await addStrategy(flag, { name: 'flexibleRollout', parameters: { rollout: '10' } });
    expect(s.parameters).toEqual({ rollout: '10', groupId: flag, stickiness: 'default' });
  });

  it.each([
    ['unknown strategy type', { name: 'nope' }, '/body/name'],
    ['a number parameter', { name: 'default', parameters: { rollout: 50 } }, '/body/parameters/rollout'],
    [
      'an unknown operator',
      { name: 'default', constraints: [{ contextName: 'a', operator: 'LIKE', values: ['x'] }] },
      '/body/constraints/0/operator',
    ],
    [
      'IN without values',
      { name: 'default', constraints: [{ contextName: 'a', operator: 'IN' }] },
      '/body/constraints/0/values',
    ],
    [
      'a bad date',
      { name: 'default', constraints: [{ contextName: 'a', operator: 'DATE_AFTER', value: 'tomorrow' }] },
      '/body/constraints/0/value',
    ],
    [
      'a bad regex',
      { name: 'default', constraints: [{ contextName: 'a', operator: 'REGEX', value: '(a' }] },
      '/body/constraints/0/value',
    ],
    ['an unknown segment', { name: 'default', segments: [999999] }, '/body/segments/0'],
    [
      'a weight above 1000',
      {
        name: 'default',
        variants: [{ name: 'a', weight: 1001, weightType: 'variable', stickiness: 'default' }],
      },
      '/body/variants/0/weight',
    ],
    [
      'fixed weights over 1000',
      {
        name: 'default',
        variants: [
          { name: 'a', weight: 900, weightType: 'fix', stickiness: 'default' },
          { name: 'b', weight: 200, weightType: 'fix', stickiness: 'default' },
          { name: 'c', weight: 0, weightType: 'variable', stickiness: 'default' },
        ],
      },
      '/body/variants',
    ],
    [
      'an invalid json payload',
      {
        name: 'default',
        variants: [
          {
            name: 'a',
            weight: 0,
            weightType: 'variable',
            stickiness: 'default',
            payload: { type: 'json', value: '{' },
          },
        ],
      },
      '/body/variants/0/payload/value',
    ],
    [
      'a bad weightType',
      { name: 'default', variants: [{ name: 'a', weight: 1, weightType: 'half', stickiness: 'default' }] },
      '/body/variants/0/weightType',
    ],
  ])('refuses %s with 400 naming the field, storing nothing', async (_label, body, path) => {
    const flag = await newFlag();
    const res = await post(`${base(flag)}/strategies`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countStrategies(flag)).toBe(0);
    expect(await types(flag)).toEqual(['feature-created']);
  });

  it('answers 404 for unknown project, flag, environment and a flag of another project', async () => {
    const flag = await newFlag();
    for (const url of [base(flag, 'development', 'nope'), base('no-such-flag'), base(flag, 'staging-x')]) {
      const res = await post(`${url}/strategies`, { name: 'default' });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
    }
    expect(await countStrategies(flag)).toBe(0);
  });

  it('answers 401 without a token', async () => {
    const flag = await newFlag();
    const res = await post(`${base(flag)}/strategies`, { name: 'default' }, { authorization: undefined });
    expect(res.statusCode).toBe(401);
    expect(res.json().name).toBe('AuthenticationRequired');
  });
});

describe('GET/PUT/PATCH/DELETE …/strategies/:strategyId', () => {
  it('reads one strategy; 404 for an unknown id', async () => {
    const flag = await newFlag();
    const s = await addStrategy(flag, { name: 'default' });
    expect((await t.request({ method: 'GET', url: `${base(flag)}/strategies/${s.id}` })).json()).toEqual(s);
    const res = await t.request({ method: 'GET', url: `${base(flag)}/strategies/nope` });
    expect(res.statusCode).toBe(404);
    const other = await t.request({ method: 'GET', url: `${base(flag, 'production')}/strategies/${s.id}` });
    expect(other.statusCode).toBe(404);
  });

  it('PUT changes only what is sent and records feature-strategy-update with preData', async () => {
    const flag = await newFlag();
    const segment = await createSegment();
    const s = await addStrategy(flag, { name: 'default', title: 'old', segments: [segment] });
    const res = await t.request({
      method: 'PUT',
      url: `${base(flag)}/strategies/${s.id}`,
      payload: { title: null, constraints: [{ contextName: 'v', operator: 'SEMVER_GTE', value: '1.2.3' }] },
    });
    expect(res.statusCode).toBe(200);
    const after = res.json();
    expect(after).toEqual({
      ...s,
      title: null,
      constraints: [
        { contextName: 'v', operator: 'SEMVER_GTE', value: '1.2.3', caseInsensitive: false, inverted: false },
      ],
    });
    const [event] = (await a.flagEvents(flag)).events;
    expect(event).toMatchObject({ type: 'feature-strategy-update', data: after, preData: s });
    // The stored segment links, read back: kept when not sent, replaced, then cleared.
    const stored = async () => (await t.request({ url: `${base(flag)}/strategies/${s.id}` })).json().segments;
    expect(await stored()).toEqual([segment]);
    const other = await createSegment();
    const put = (segments: number[]) =>
      t.request({ method: 'PUT', url: `${base(flag)}/strategies/${s.id}`, payload: { segments } });
    await put([other, segment]);
    expect(await stored()).toEqual([segment, other].sort((x, y) => x - y));
    await put([other]);
    expect(await stored()).toEqual([other]);
    const cleared = await put([]);
    expect(cleared.json().segments).toEqual([]);
    expect(await stored()).toEqual([]);
  });

  it('PUT refuses bad input (400) and an unknown id (404), changing nothing', async () => {
    const flag = await newFlag();
    const s = await addStrategy(flag, { name: 'default' });
    const bad = await t.request({
      method: 'PUT',
      url: `${base(flag)}/strategies/${s.id}`,
      payload: { constraints: [{ contextName: 'n', operator: 'NUM_GT', value: 'ten' }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/body/constraints/0/value');
    const missing = await t.request({ method: 'PUT', url: `${base(flag)}/strategies/nope`, payload: {} });
    expect(missing.statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `${base(flag)}/strategies/${s.id}` })).json()).toEqual(s);
    expect(await types(flag)).toEqual(['feature-strategy-add', 'feature-created']);
  });

  it('PATCH applies a JSON Patch and validates the result', async () => {
    const flag = await newFlag();
    const s = await addStrategy(flag, { name: 'flexibleRollout', parameters: { rollout: '10' } });
    const url = `${base(flag)}/strategies/${s.id}`;
    const ok = await t.request({
      method: 'PATCH',
      url,
      payload: [
        { op: 'test', path: '/parameters/rollout', value: '10' },
        { op: 'replace', path: '/parameters/rollout', value: '80' },
        {
          op: 'add',
          path: '/constraints/-',
          value: { contextName: 'ip', operator: 'IN_CIDR', values: ['10.0.0.0/8'] },
        },
      ],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().parameters.rollout).toBe('80');
    expect(ok.json().constraints).toEqual([
      {
        contextName: 'ip',
        operator: 'IN_CIDR',
        values: ['10.0.0.0/8'],
        caseInsensitive: false,
        inverted: false,
      },
    ]);
    expect((await a.flagEvents(flag)).events[0]).toMatchObject({
      type: 'feature-strategy-update',
      preData: s,
    });

    const failedTest = await t.request({
      method: 'PATCH',
      url,
      payload: [{ op: 'test', path: '/title', value: 'x' }],
    });
    expect(failedTest.statusCode).toBe(400);
    expect(failedTest.json().details[0].path).toBe('/body/0');
    const badResult = await t.request({
      method: 'PATCH',
      url,
      payload: [{ op: 'replace', path: '/parameters/rollout', value: 5 }],
    });
    expect(badResult.statusCode).toBe(400);
    const badOp = await t.request({ method: 'PATCH', url, payload: [{ op: 'jump', path: '/x' }] });
    expect(badOp.statusCode).toBe(400);
    expect(await types(flag)).toEqual(['feature-strategy-update', 'feature-strategy-add', 'feature-created']);
  });

  it('DELETE removes the strategy and records feature-strategy-remove', async () => {
    const flag = await newFlag();
    const segment = await createSegment();
    const s = await addStrategy(flag, { name: 'default', segments: [segment] });
    const res = await t.request({ method: 'DELETE', url: `${base(flag)}/strategies/${s.id}` });
    expect(res.statusCode).toBe(200);
    expect(await countStrategies(flag)).toBe(0);
    expect(await a.count('feature_strategy_segment', 'segment_id = $1', [segment])).toBe(0);
    expect((await a.flagEvents(flag)).events[0]).toMatchObject({
      type: 'feature-strategy-remove',
      data: null,
      preData: s,
    });
    const again = await t.request({ method: 'DELETE', url: `${base(flag)}/strategies/${s.id}` });
    expect(again.statusCode).toBe(404);
    const noAuth = await t.request({
      method: 'DELETE',
      url: `${base(flag)}/strategies/x`,
      headers: { authorization: undefined },
    });
    expect(noAuth.statusCode).toBe(401);
  });
});

describe('the last enabled strategy of an environment that is on (docs/evaluation.md §11)', () => {
  const enabledIn = async (flag: string) =>
    (await t.request({ method: 'GET', url: base(flag) })).json().enabled as boolean;

  it('DELETE of the last one turns the environment off, recorded before the removal', async () => {
    const flag = await newFlag();
    const s = await addStrategy(flag, { name: 'default' });
    expect((await post(`${base(flag)}/on`)).statusCode).toBe(200);
    const res = await t.request({ method: 'DELETE', url: `${base(flag)}/strategies/${s.id}` });
    expect(res.statusCode).toBe(200);
    expect(await enabledIn(flag)).toBe(false);
    const [removed, disabled] = (await a.flagEvents(flag)).events;
    expect(removed).toMatchObject({ type: 'feature-strategy-remove', environment: 'development' });
    expect(disabled).toMatchObject({ type: 'feature-environment-disabled', environment: 'development' });
    // Turned on again, it gets the default strategy as any environment without one.
    expect((await post(`${base(flag)}/on`)).statusCode).toBe(200);
    expect(await countStrategies(flag)).toBe(1);
  });

  it('disabling the last enabled one (PUT or PATCH) turns it off; another enabled one keeps it on', async () => {
    const flag = await newFlag();
    const first = await addStrategy(flag, { name: 'default' });
    const second = await addStrategy(flag, { name: 'default' });
    expect((await post(`${base(flag)}/on`)).statusCode).toBe(200);
    const put = await t.request({
      method: 'PUT',
      url: `${base(flag)}/strategies/${first.id}`,
      payload: { name: 'default', disabled: true },
    });
    expect(put.statusCode).toBe(200);
    expect(await enabledIn(flag)).toBe(true);
    const patch = await t.request({
      method: 'PATCH',
      url: `${base(flag)}/strategies/${second.id}`,
      payload: [{ op: 'replace', path: '/disabled', value: true }],
    });
    expect(patch.statusCode).toBe(200);
    expect(await enabledIn(flag)).toBe(false);
    expect(await types(flag)).toEqual([
      'feature-environment-disabled',
      'feature-strategy-update',
      'feature-strategy-update',
      'feature-environment-enabled',
      'feature-strategy-add',
      'feature-strategy-add',
      'feature-created',
    ]);
  });

  it('leaves an environment that is off as it is, and a deletion beside an enabled one', async () => {
    const flag = await newFlag();
    const only = await addStrategy(flag, { name: 'default' });
    const del = await t.request({ method: 'DELETE', url: `${base(flag)}/strategies/${only.id}` });
    expect(del.statusCode).toBe(200);
    expect(await types(flag)).toEqual(['feature-strategy-remove', 'feature-strategy-add', 'feature-created']);

    const kept = await addStrategy(flag, { name: 'default' });
    const gone = await addStrategy(flag, { name: 'default' });
    expect((await post(`${base(flag)}/on`)).statusCode).toBe(200);
    await t.request({ method: 'DELETE', url: `${base(flag)}/strategies/${gone.id}` });
    expect(await enabledIn(flag)).toBe(true);
    expect((await t.request({ method: 'GET', url: `${base(flag)}/strategies` })).json()).toEqual([kept]);
  });
});

describe('POST …/strategies/set-sort-order', () => {
  it('reorders and records strategy-order-changed; 404 for a foreign id; 400 for a bad body', async () => {
    const flag = await newFlag();
    const s1 = await addStrategy(flag, { name: 'default' });
    const s2 = await addStrategy(flag, { name: 'default' });
    const url = `${base(flag)}/strategies/set-sort-order`;
    const res = await post(url, [
      { id: s1.id, sortOrder: 5 },
      { id: s2.id, sortOrder: 1 },
    ]);
    expect(res.statusCode).toBe(200);
    const list = (await t.request({ method: 'GET', url: `${base(flag)}/strategies` })).json();
    expect(list.map((s: { id: string; sortOrder: number }) => [s.id, s.sortOrder])).toEqual([
      [s2.id, 1],
      [s1.id, 5],
    ]);
    const [event] = (await a.flagEvents(flag)).events;
    expect(event).toMatchObject({
      type: 'strategy-order-changed',
      data: [
        { strategyId: s2.id, sortOrder: 1 },
        { strategyId: s1.id, sortOrder: 5 },
      ],
      preData: [
        { strategyId: s1.id, sortOrder: 0 },
        { strategyId: s2.id, sortOrder: 1 },
      ],
    });
    expect((await post(url, [{ id: 'nope', sortOrder: 1 }])).statusCode).toBe(404);
    expect((await post(url, [{ id: s1.id, sortOrder: 'x' }])).statusCode).toBe(400);
    expect((await post(url, [{ id: s1.id, sortOrder: 0 }], { authorization: undefined })).statusCode).toBe(
      401,
    );
    expect(await types(flag)).toEqual([
      'strategy-order-changed',
      'feature-strategy-add',
      'feature-strategy-add',
      'feature-created',
    ]);
  });
});

/** The events of a new flag turned on (without strategies) and off again, newest first. */
const ON_THEN_OFF = [
  'feature-environment-disabled',
  'feature-environment-enabled',
  'feature-strategy-add',
  'feature-created',
];

describe('POST …/environments/:environment/on|off', () => {
  it('on without strategies adds flexibleRollout 100%, enables, enters pre-live; off disables', async () => {
    const flag = await newFlag();
    const on = await t.request({ method: 'POST', url: `${base(flag)}/on` });
    expect(on.statusCode).toBe(200);
    const view = (await a.getFlag('default', flag)).json();
    expect(view.environments[0]).toMatchObject({ name: 'development', enabled: true });
    expect(view.environments[0].strategies).toEqual([
      expect.objectContaining({
        name: 'flexibleRollout',
        parameters: { rollout: '100', stickiness: 'default', groupId: flag },
        constraints: [],
        sortOrder: 0,
      }),
    ]);
    expect(view.lifecycle.stage).toBe('pre-live');
    expect(await types(flag)).toEqual([
      'feature-environment-enabled',
      'feature-strategy-add',
      'feature-created',
    ]);

    expect((await t.request({ method: 'POST', url: `${base(flag)}/on` })).statusCode).toBe(200);
    expect(await types(flag)).toHaveLength(3);

    expect((await t.request({ method: 'POST', url: `${base(flag)}/off` })).statusCode).toBe(200);
    expect((await a.getFlag('default', flag)).json().environments[0].enabled).toBe(false);
    expect((await t.request({ method: 'POST', url: `${base(flag)}/off` })).statusCode).toBe(200);
    expect(await types(flag)).toEqual(ON_THEN_OFF);
    const recorded = (await t.request({ method: 'GET', url: `/api/admin/events/${flag}` })).json().events;
    for (const event of recorded.slice(0, 2)) {
      expect(event).toMatchObject({ featureName: flag, project: 'default', environment: 'development' });
      expect(event.createdBy).toBeTruthy();
      expect(event.data ?? null).toBeNull();
    }
  });

  it('turns on a flag whose environment row is missing (made and locked by the change)', async () => {
    const flag = await newFlag();
    await t.database.session((run) =>
      run(`DELETE FROM feature_environments WHERE feature_name = $1 AND environment = 'development'`, [flag]),
    );
    expect((await t.request({ method: 'POST', url: `${base(flag)}/on` })).statusCode).toBe(200);
    const dev = (await a.getFlag('default', flag))
      .json()
      .environments.find((e: { name: string }) => e.name === 'development');
    expect(dev).toMatchObject({
      enabled: true,
      strategies: [expect.objectContaining({ name: 'flexibleRollout' })],
    });
    expect((await t.request({ method: 'POST', url: `${base(flag)}/off` })).statusCode).toBe(200);
    expect(await types(flag)).toEqual(ON_THEN_OFF);
  });

  it('records when each toggle entered its stages, toggle after toggle', async () => {
    // Several flags in turn: on PGlite the statement runs by name from its second time, with the
    // parameter types PostgreSQL inferred (the time among them).
    for (let i = 0; i < 3; i++) {
      const flag = await newFlag();
      await addStrategy(flag, { name: 'default' }, 'production');
      const before = Date.now();
      expect((await post(`${base(flag, 'production')}/on`)).statusCode).toBe(200);
      const stages = (
        await t.request({ method: 'GET', url: `/api/admin/projects/default/features/${flag}/lifecycle` })
      ).json() as { stage: string; enteredStageAt: string }[];
      expect(stages.map((s) => s.stage)).toEqual(['initial', 'pre-live', 'live']);
      for (const s of stages.slice(1)) {
        const at = Date.parse(s.enteredStageAt);
        expect(at, s.stage).toBeGreaterThanOrEqual(before - 1000);
        expect(at, s.stage).toBeLessThanOrEqual(Date.now() + 1000);
      }
    }
  });

  it('keeps an existing enabled strategy; production enters live', async () => {
    const flag = await newFlag();
    await addStrategy(flag, { name: 'default' }, 'production');
    expect((await t.request({ method: 'POST', url: `${base(flag, 'production')}/on` })).statusCode).toBe(200);
    const view = (await a.getFlag('default', flag)).json();
    expect(view.environments[1].strategies).toHaveLength(1);
    expect(view.lifecycle.stage).toBe('live');
  });

  it('uses the project environment default strategy (blank groupId → flag name)', async () => {
    const flag = await newFlag();
    await t.database.session((run) =>
      run(
        `UPDATE project_environments SET default_strategy = $1 WHERE project_id = 'default' AND environment_name = 'production'`,
        [
          JSON.stringify({
            name: 'flexibleRollout',
            parameters: { rollout: '25', stickiness: 'userId', groupId: '' },
          }),
        ],
      ),
    );
    try {
      await t.request({ method: 'POST', url: `${base(flag, 'production')}/on` });
      const [s] = (await t.request({ method: 'GET', url: `${base(flag, 'production')}/strategies` })).json();
      expect(s).toMatchObject({
        name: 'flexibleRollout',
        parameters: { rollout: '25', stickiness: 'userId', groupId: flag },
      });
    } finally {
      await t.database.session((run) => run(`UPDATE project_environments SET default_strategy = NULL`, []));
    }
  });

  it('refuses to turn an archived flag on or off (400) and changes nothing', async () => {
    const flag = await newFlag();
    await addStrategy(flag, { name: 'default' });
    const archived = await t.request({
      method: 'PUT',
      url: `/api/admin/projects/default/features/${flag}`,
      payload: { archived: true },
    });
    expect(archived.statusCode).toBe(200);
    const before = await types(flag);
    for (const action of ['on', 'off']) {
      const res = await post(`${base(flag)}/${action}`);
      expect(res.statusCode, action).toBe(400);
      expect(res.json().message).toContain('archived');
    }
    expect((await a.getFlag('default', flag)).json().environments[0].enabled).toBe(false);
    expect(await types(flag)).toEqual(before);
  });

  it('answers 404 for unknown flag/project/environment and 401 without a token', async () => {
    const flag = await newFlag();
    for (const url of [base('nope'), base(flag, 'development', 'nope'), base(flag, 'nope')]) {
      const res = await t.request({ method: 'POST', url: `${url}/on` });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
    }
    const noAuth = await t.request({
      method: 'POST',
      url: `${base(flag)}/on`,
      headers: { authorization: undefined },
    });
    expect(noAuth.statusCode).toBe(401);
    expect(await countStrategies(flag)).toBe(0);
    expect(await types(flag)).toEqual(['feature-created']);
  });
});
