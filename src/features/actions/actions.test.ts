import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { changes } from '../../changes.js';
import { testConfig } from '../../config.js';
import { runActionSets } from './index.js';

/**
 * Signals and actions as a team wires them: an Admin creates a signal endpoint and a token, an
 * external system posts alerts to it, and a project's action set turns a flag off when an alert
 * matches, as a service account; every run is recorded with each action's outcome.
 */
const RUNS_PER_MINUTE = 3;
let t: TestApp;
let clock = Date.now();
const now = () => new Date(clock);
beforeAll(async () => {
  t = await startTestApp({ now, config: { ACTION_SET_RUNS_PER_MINUTE: RUNS_PER_MINUTE } });
});
afterAll(() => t.close());

/** One round of the actions job, as it runs, at the test's clock. */
const round = () =>
  runActionSets({
    deps: { database: t.database, config: testConfig({ ACTION_SET_RUNS_PER_MINUTE: RUNS_PER_MINUTE }), now },
    changes,
  });

const post = (name: string, token: string | undefined, payload?: unknown) =>
  t.request({
    method: 'POST',
    url: `/api/signal-endpoint/${name}`,
    headers: { authorization: token === undefined ? undefined : `Bearer ${token}` },
    ...(payload !== undefined && { payload: payload as object }),
  });

async function endpoint() {
  const name = uniqueName('alerts');
  const created = await t.send('POST', '/api/admin/signal-endpoints', { name, description: 'APM alerts' });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as number;
  const token = await t.send('POST', `/api/admin/signal-endpoints/${id}/tokens`, { name: 'apm' });
  expect(token.statusCode, token.body).toBe(201);
  return {
    id,
    name,
    url: created.json().url as string,
    token: token.json() as { id: number; token: string },
  };
}

async function serviceAccount(rootRole = 'Admin') {
  const res = await t.send('POST', '/api/admin/service-account', {
    username: uniqueName('bot'),
    name: 'Automation',
    rootRole,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; username: string };
}

async function projectWithFlag() {
  const project = uniqueName('auto');
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201);
  const flag = uniqueName('killswitch');
  expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag })).statusCode).toBe(
    200,
  );
  const on = await t.send(
    'POST',
    `/api/admin/projects/${project}/features/${flag}/environments/production/on`,
  );
  expect(on.statusCode, on.body).toBe(200);
  return { project, flag };
}

const enabledIn = async (project: string, flag: string, environment = 'production') =>
  (await t.send('GET', `/api/admin/projects/${project}/features/${flag}`))
    .json()
    .environments.find((e: { name: string }) => e.name === environment)?.enabled;

const actionSet = (
  project: string,
  actorId: number,
  sourceId: number,
  flag: string,
  extra: Record<string, unknown> = {},
) => ({
  name: uniqueName('kill on alert'),
  actorId,
  match: {
    source: 'signal-endpoint',
    sourceId,
    payload: { 'alert.severity': { operator: 'IN', values: ['critical'] } },
  },
  actions: [
    {
      action: 'TOGGLE_FEATURE_OFF',
      sortOrder: 1,
      executionParams: { project, environment: 'production', featureName: flag },
    },
  ],
  ...extra,
});

const runsOf = async (project: string, id: number) =>
  (await t.send('GET', `/api/admin/projects/${project}/actions/${id}/events`)).json().actionSetEvents;

describe('signal endpoints', () => {
  it('takes signals only with one of its tokens, shown once and stored hashed; each change on the record', async () => {
    const e = await endpoint();
    expect(e.url).toMatch(new RegExp(`/api/signal-endpoint/${e.name}$`));
    expect(e.token.token).toMatch(/^[0-9a-f]{64}$/);
    const listed = (await t.send('GET', `/api/admin/signal-endpoints/${e.id}/tokens`)).json();
    expect(listed.signalEndpointTokens).toEqual([expect.objectContaining({ id: e.token.id, name: 'apm' })]);
    expect(JSON.stringify(listed)).not.toContain(e.token.token);
    const stored = await t.database.session((run) =>
      run('SELECT token_hash FROM signal_endpoint_tokens WHERE id = $1', [e.token.id]),
    );
    expect(stored[0]?.token_hash).not.toBe(e.token.token);

    // Without the endpoint's token (or at a name that does not exist): 401, nothing stored.
    expect((await post(e.name, undefined, { a: 1 })).statusCode).toBe(401);
    expect((await post(e.name, 'not-a-token', { a: 1 })).statusCode).toBe(401);
    const other = await endpoint();
    expect((await post(e.name, other.token.token, { a: 1 })).statusCode).toBe(401);
    expect((await post('no-such-endpoint', e.token.token, { a: 1 })).statusCode).toBe(401);
    expect(await api(t).count('signals', 'source_id = $1', [e.id])).toBe(0);

    const sent = await post(e.name, e.token.token, { alert: { severity: 'critical', service: 'checkout' } });
    expect(sent.statusCode, sent.body).toBe(202);
    expect((await post(e.name, e.token.token)).statusCode).toBe(202);
    const signals = (await t.send('GET', `/api/admin/signal-endpoints/${e.id}/signals`)).json();
    expect(signals.signalEndpointSignals).toEqual([
      expect.objectContaining({ source: 'signal-endpoint', sourceId: e.id, tokenName: 'apm', payload: {} }),
      expect.objectContaining({ payload: { alert: { severity: 'critical', service: 'checkout' } } }),
    ]);
    const all = (await t.send('GET', '/api/admin/signals?limit=1')).json();
    expect(all.signals).toHaveLength(1);
    expect(all.total).toBeGreaterThanOrEqual(2);
    expect(all.signals[0]).toMatchObject({ sourceName: expect.any(String) });

    // Disabled: 403 and nothing stored; on again: accepted.
    expect((await t.send('POST', `/api/admin/signal-endpoints/${e.id}/off`)).json().enabled).toBe(false);
    expect((await post(e.name, e.token.token, { x: 1 })).statusCode).toBe(403);
    expect((await t.send('POST', `/api/admin/signal-endpoints/${e.id}/on`)).statusCode).toBe(200);

    // A renamed token keeps working; a deleted one stops at once.
    const renamed = await t.send('PUT', `/api/admin/signal-endpoints/${e.id}/tokens/${e.token.id}`, {
      name: 'apm-2',
    });
    expect(renamed.json().name).toBe('apm-2');
    expect(
      (await t.send('DELETE', `/api/admin/signal-endpoints/${e.id}/tokens/${e.token.id}`)).statusCode,
    ).toBe(200);
    expect((await post(e.name, e.token.token, { x: 1 })).statusCode).toBe(401);
    expect(await api(t).count('signals', 'source_id = $1', [e.id])).toBe(2);

    const types = await t.database.session((run) =>
      run(
        `SELECT type FROM events WHERE type LIKE 'signal-endpoint%' AND (data->>'id' = $1 OR pre_data->>'id' = $1 OR data->>'signalEndpointId' = $1 OR pre_data->>'signalEndpointId' = $1) ORDER BY id`,
        [String(e.id)],
      ),
    );
    expect(types.map((r) => r.type)).toEqual([
      'signal-endpoint-created',
      'signal-endpoint-token-created',
      'signal-endpoint-updated',
      'signal-endpoint-updated',
      'signal-endpoint-token-updated',
      'signal-endpoint-token-deleted',
    ]);
    const events = await t.database.session((run) =>
      run(`SELECT data::text AS d FROM events WHERE type LIKE 'signal-endpoint-token%'`, []),
    );
    expect(events.every((r) => !String(r.d).includes(e.token.token))).toBe(true);
  });

  it('refuses bad input with the documented 4xx and stores nothing', async () => {
    const e = await endpoint();
    for (const body of [{ name: 'has space' }, { name: '' }, { name: 'a/b' }, { description: 'no name' }]) {
      const res = await t.send('POST', '/api/admin/signal-endpoints', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await t.send('POST', '/api/admin/signal-endpoints', { name: e.name })).statusCode).toBe(409);
    expect((await t.send('GET', '/api/admin/signal-endpoints/999999')).statusCode).toBe(404);
    expect((await t.send('DELETE', `/api/admin/signal-endpoints/${e.id}/tokens/999999`)).statusCode).toBe(
      404,
    );

    const big = await post(e.name, e.token.token, { blob: 'x'.repeat(1_100_000) });
    expect(big.statusCode).toBe(413);
    const nul = await post(e.name, e.token.token, { text: 'a\u0000b' });
    expect(nul.statusCode, nul.body).toBe(400);
    const text = await t.request({
      method: 'POST',
      url: `/api/signal-endpoint/${e.name}`,
      headers: { authorization: e.token.token, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    expect(await api(t).count('signals', 'source_id = $1', [e.id])).toBe(0);
  });
});

describe('action sets', () => {
  it('turns a flag off when a matching signal arrives, as its service account, and records the run', async () => {
    const { project, flag } = await projectWithFlag();
    const e = await endpoint();
    const bot = await serviceAccount();
    const created = await t.send(
      'POST',
      `/api/admin/projects/${project}/actions`,
      actionSet(project, bot.id, e.id, flag),
    );
    expect(created.statusCode, created.body).toBe(201);
    const set = created.json();
    expect(set).toMatchObject({
      project,
      enabled: true,
      actorId: bot.id,
      actions: [{ action: 'TOGGLE_FEATURE_OFF' }],
    });
    expect((await api(t).lastEvent('actions-created'))?.data).toMatchObject({ id: set.id, name: set.name });

    await round(); // what earlier tests left
    // A signal the filters do not match: no run, the flag stays on.
    expect((await post(e.name, e.token.token, { alert: { severity: 'warning' } })).statusCode).toBe(202);
    expect(await round()).toBe(1);
    expect(await enabledIn(project, flag)).toBe(true);
    expect(await runsOf(project, set.id)).toEqual([]);

    expect((await post(e.name, e.token.token, { alert: { severity: 'critical' } })).statusCode).toBe(202);
    expect(await round()).toBe(1);
    expect(await enabledIn(project, flag)).toBe(false);
    const [run] = await runsOf(project, set.id);
    expect(run).toMatchObject({
      actionSetId: set.id,
      state: 'success',
      signal: { payload: { alert: { severity: 'critical' } }, sourceId: e.id },
      actionSet: { id: set.id, actions: [{ action: 'TOGGLE_FEATURE_OFF', state: 'success' }] },
    });
    const change = await api(t).lastEvent('feature-environment-disabled');
    expect(change).toMatchObject({ feature_name: flag, environment: 'production', created_by: bot.username });
    // Each signal is taken once.
    expect(await round()).toBe(0);

    // The config lists what it can do with the project's choices.
    const config = (await t.send('GET', `/api/admin/projects/${project}/actions/config`)).json();
    expect(Object.keys(config)).toEqual([
      'TOGGLE_FEATURE_ON',
      'TOGGLE_FEATURE_OFF',
      'TOGGLE_FEATURES_ON_BY_TAG',
      'TOGGLE_FEATURES_OFF_BY_TAG',
    ]);
    expect(config.TOGGLE_FEATURE_ON.parameters).toContainEqual(
      expect.objectContaining({ name: 'featureName', options: [flag] }),
    );

    // The endpoint cannot be deleted under its action set; with the set gone it can.
    expect((await t.send('DELETE', `/api/admin/signal-endpoints/${e.id}`)).statusCode).toBe(409);
    expect((await t.send('DELETE', `/api/admin/projects/${project}/actions/${set.id}`)).statusCode).toBe(200);
    expect((await t.send('DELETE', `/api/admin/signal-endpoints/${e.id}`)).statusCode).toBe(200);
    expect(await api(t).count('signals', 'source_id = $1', [e.id])).toBe(0);
  });

  it('turns off every flag of the project that carries a tag, as the flags are when it runs', async () => {
    const { project, flag } = await projectWithFlag();
    const other = uniqueName('untagged');
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/features`, { name: other })).statusCode,
    ).toBe(200);
    const second = uniqueName('tagged');
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/features`, { name: second })).statusCode,
    ).toBe(200);
    for (const name of [other, second]) {
      const on = await t.send(
        'POST',
        `/api/admin/projects/${project}/features/${name}/environments/production/on`,
      );
      expect(on.statusCode).toBe(200);
    }
    const tag = (name: string) =>
      t.send('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'checkout' });
    expect((await tag(flag)).statusCode).toBe(201);
    const e = await endpoint();
    const bot = await serviceAccount();
    const body = actionSet(project, bot.id, e.id, flag, {
      actions: [
        {
          action: 'TOGGLE_FEATURES_OFF_BY_TAG',
          sortOrder: 1,
          executionParams: { project, environment: 'production', tag: 'simple:checkout' },
        },
      ],
    });
    const created = await t.send('POST', `/api/admin/projects/${project}/actions`, body);
    expect(created.statusCode, created.body).toBe(201);
    const config = (await t.send('GET', `/api/admin/projects/${project}/actions/config`)).json();
    expect(config.TOGGLE_FEATURES_OFF_BY_TAG.parameters.map((p: { name: string }) => p.name)).toEqual([
      'project',
      'environment',
      'tag',
    ]);
    expect(config.TOGGLE_FEATURES_OFF_BY_TAG.parameters[2].options).toEqual(['simple:checkout']);

    // Tagged after the set was saved: the tag names the flags that carry it when the set runs.
    expect((await tag(second)).statusCode).toBe(201);
    await round();
    expect((await post(e.name, e.token.token, { alert: { severity: 'critical' } })).statusCode).toBe(202);
    expect(await round()).toBe(1);
    expect(await enabledIn(project, flag)).toBe(false);
    expect(await enabledIn(project, second)).toBe(false);
    expect(await enabledIn(project, other)).toBe(true);
    const [run] = await runsOf(project, created.json().id);
    expect(run.actionSet.actions).toMatchObject([{ action: 'TOGGLE_FEATURES_OFF_BY_TAG', state: 'success' }]);

    // A by-tag action needs its tag, as `type:value`.
    const saveByTag = (params: Record<string, string>) =>
      t.send(
        'POST',
        `/api/admin/projects/${project}/actions`,
        actionSet(project, bot.id, e.id, flag, {
          actions: [
            {
              action: 'TOGGLE_FEATURES_ON_BY_TAG',
              sortOrder: 1,
              executionParams: { project, environment: 'production', ...params },
            },
          ],
        }),
      );
    const missing = await saveByTag({});
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(missing.json().details)).toContain('/body/actions/0/executionParams/tag');
    const untyped = await saveByTag({ tag: 'checkout' });
    expect(untyped.statusCode).toBe(400);
    expect(JSON.stringify(untyped.json().details)).toContain('type:value');
  });

  it('records a failing action with its reason while the others still run', async () => {
    const { project, flag } = await projectWithFlag();
    const e = await endpoint();
    const viewer = await serviceAccount('Viewer');
    const admin = await serviceAccount('Admin');
    const failing = (
      await t.send(
        'POST',
        `/api/admin/projects/${project}/actions`,
        actionSet(project, viewer.id, e.id, flag),
      )
    ).json();
    const mixed = (
      await t.send(
        'POST',
        `/api/admin/projects/${project}/actions`,
        actionSet(project, admin.id, e.id, flag, {
          actions: [
            {
              action: 'TOGGLE_FEATURE_OFF',
              sortOrder: 1,
              executionParams: { project, environment: 'production', featureName: 'no-such-flag' },
            },
            {
              action: 'TOGGLE_FEATURE_OFF',
              sortOrder: 2,
              executionParams: { project, environment: 'production', featureName: flag },
            },
          ],
        }),
      )
    ).json();
    expect(mixed.actions).toHaveLength(2);

    expect((await post(e.name, e.token.token, { alert: { severity: 'critical' } })).statusCode).toBe(202);
    await round();
    const [denied] = await runsOf(project, failing.id);
    expect(denied.state).toBe('failed');
    expect(denied.actionSet.actions[0]).toMatchObject({
      state: 'failed',
      details: expect.stringContaining('UPDATE_FEATURE_ENVIRONMENT'),
    });
    const [partly] = await runsOf(project, mixed.id);
    expect(partly.state).toBe('failed');
    expect(partly.actionSet.actions.map((a: { state: string }) => a.state)).toEqual(['failed', 'success']);
    expect(partly.actionSet.actions[0].details).toMatch(/no-such-flag/);
    expect(await enabledIn(project, flag)).toBe(false);

    // A deleted service account: its set's runs fail, saying so.
    expect((await t.send('DELETE', `/api/admin/service-account/${viewer.id}`)).statusCode).toBe(200);
    expect(
      (await t.send('GET', `/api/admin/projects/${project}/actions/${failing.id}`)).json().actorId,
    ).toBeNull();
    expect((await post(e.name, e.token.token, { alert: { severity: 'critical' } })).statusCode).toBe(202);
    await round();
    const [orphan] = await runsOf(project, failing.id);
    expect(orphan.actionSet.actions[0].details).toMatch(/no longer exists/);
  });

  it('meets the change requests of an environment like any direct write', async () => {
    const { project, flag } = await projectWithFlag();
    const e = await endpoint();
    // A project Member: it may turn flags on and off there, but not skip change requests.
    const bot = await serviceAccount('Viewer');
    const member = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [5],
      users: [{ id: bot.id }],
    });
    expect(member.statusCode).toBe(200);
    const config = await t.send(
      'PUT',
      `/api/admin/projects/${project}/environments/production/change-requests/config`,
      { changeRequestsEnabled: true, requiredApprovals: 1 },
    );
    expect(config.statusCode, config.body).toBeLessThan(300);
    const set = (
      await t.send('POST', `/api/admin/projects/${project}/actions`, actionSet(project, bot.id, e.id, flag))
    ).json();
    expect((await post(e.name, e.token.token, { alert: { severity: 'critical' } })).statusCode).toBe(202);
    await round();
    const [run] = await runsOf(project, set.id);
    expect(run.actionSet.actions[0]).toMatchObject({
      state: 'failed',
      details: expect.stringMatching(/change request/i),
    });
    expect(await enabledIn(project, flag)).toBe(true);
  });

  it('runs an action set at most ACTION_SET_RUNS_PER_MINUTE times a minute (no runaway loop)', async () => {
    const { project, flag } = await projectWithFlag();
    const e = await endpoint();
    const bot = await serviceAccount();
    const set = (
      await t.send(
        'POST',
        `/api/admin/projects/${project}/actions`,
        actionSet(project, bot.id, e.id, flag, {
          match: { source: 'signal-endpoint', sourceId: e.id, payload: {} },
        }),
      )
    ).json();
    for (let i = 0; i < RUNS_PER_MINUTE + 2; i++) {
      expect((await post(e.name, e.token.token, { i })).statusCode).toBe(202);
    }
    await round();
    const runs = await runsOf(project, set.id);
    expect(runs).toHaveLength(RUNS_PER_MINUTE + 2);
    const states = runs
      .reverse()
      .map((r: { actionSet: { actions: { state: string }[] } }) => r.actionSet.actions[0]?.state);
    expect(states).toEqual([...Array(RUNS_PER_MINUTE).fill('success'), 'not started', 'not started']);

    clock += 61_000;
    expect((await post(e.name, e.token.token, { later: true })).statusCode).toBe(202);
    await round();
    expect((await runsOf(project, set.id))[0].state).toBe('success');

    // Disabled: signals no longer start it.
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/actions/${set.id}/off`)).json().enabled,
    ).toBe(false);
    expect((await post(e.name, e.token.token, { off: true })).statusCode).toBe(202);
    await round();
    expect(await runsOf(project, set.id)).toHaveLength(RUNS_PER_MINUTE + 3);
  });

  it('refuses an action set that could not run, naming the field, and stores nothing', async () => {
    const { project, flag } = await projectWithFlag();
    const e = await endpoint();
    const bot = await serviceAccount();
    const person = await t.send('POST', '/api/admin/user-admin', {
      email: `${uniqueName('p')}@example.com`,
      rootRole: 'Editor',
    });
    const good = actionSet(project, bot.id, e.id, flag);
    const cases: [Record<string, unknown>, string][] = [
      [
        { ...good, match: { ...good.match, payload: { a: { operator: 'LIKE', values: ['x'] } } } },
        '/body/match/payload/a/operator',
      ],
      [
        { ...good, match: { ...good.match, payload: { a: { operator: 'NUM_GT' } } } },
        '/body/match/payload/a/value',
      ],
      [
        { ...good, match: { ...good.match, payload: { a: { operator: 'IN', values: [] } } } },
        '/body/match/payload/a/values',
      ],
      [{ ...good, match: { ...good.match, sourceId: 999999 } }, '/body/match/sourceId'],
      [{ ...good, actorId: person.json().id }, '/body/actorId'],
      [{ ...good, actions: [] }, '/body/actions'],
      [{ ...good, actions: [{ ...good.actions[0], action: 'DELETE_EVERYTHING' }] }, '/body/actions/0/action'],
      [
        {
          ...good,
          actions: [
            {
              ...good.actions[0],
              executionParams: { project: 'default', environment: 'production', featureName: flag },
            },
          ],
        },
        '/body/actions/0/executionParams/project',
      ],
      [
        {
          ...good,
          actions: [{ ...good.actions[0], executionParams: { project, environment: 7, featureName: flag } }],
        },
        '/body/actions/0/executionParams/environment',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await t.send('POST', `/api/admin/projects/${project}/actions`, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(JSON.stringify(res.json().details ?? res.json().message), path).toContain(path.split('/').pop());
    }
    expect((await t.send('POST', '/api/admin/projects/no-such-project/actions', good)).statusCode).toBe(404);
    expect((await t.send('GET', `/api/admin/projects/${project}/actions/999999`)).statusCode).toBe(404);
    expect((await t.send('GET', `/api/admin/projects/${project}/actions`)).json().actions).toEqual([]);
    const first = await t.send('POST', `/api/admin/projects/${project}/actions`, good);
    expect(first.statusCode).toBe(201);
    expect((await t.send('POST', `/api/admin/projects/${project}/actions`, good)).statusCode).toBe(409);
    const edited = await t.send('PUT', `/api/admin/projects/${project}/actions/${first.json().id}`, {
      ...good,
      description: 'edited',
      actions: [{ ...good.actions[0], action: 'TOGGLE_FEATURE_ON' }],
    });
    expect(edited.json()).toMatchObject({
      description: 'edited',
      actions: [{ action: 'TOGGLE_FEATURE_ON' }],
    });
    expect((await api(t).lastEvent('actions-updated'))?.pre_data).toMatchObject({
      actions: [{ action: 'TOGGLE_FEATURE_OFF' }],
    });
  });
});
