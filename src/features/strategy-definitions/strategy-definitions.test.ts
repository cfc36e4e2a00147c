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

const params = [{ name: 'pct', type: 'percentage', description: 'how many', required: true }];

describe('strategy definitions', () => {
  it('lists the built-in strategies as not editable', async () => {
    const res = await t.send('GET', '/api/admin/strategies');
    expect(res.statusCode).toBe(200);
    expect(res.json().version).toBe(1);
    const flexible = res.json().strategies.find((s: { name: string }) => s.name === 'flexibleRollout');
    expect(flexible).toMatchObject({
      name: 'flexibleRollout',
      displayName: 'Gradual rollout',
      editable: false,
      deprecated: false,
    });
    expect(flexible.parameters[0]).toEqual({
      name: 'rollout',
      type: 'percentage',
      description: '',
      required: false,
    });
    expect((await t.send('GET', '/api/admin/strategies/default')).json()).toMatchObject({
      name: 'default',
      editable: false,
    });
  });

  it('creates, updates, deprecates, reactivates and deletes a custom strategy with events', async () => {
    const name = uniqueName('strat');
    const res = await t.send('POST', '/api/admin/strategies', {
      name,
      title: 'Mine',
      description: 'd',
      parameters: [{ name: 'ids', type: 'list' }],
    });
    expect(res.statusCode).toBe(201);
    const created = {
      name,
      title: 'Mine',
      displayName: 'Mine',
      description: 'd',
      editable: true,
      deprecated: false,
      parameters: [{ name: 'ids', type: 'list', description: '', required: false }],
    };
    expect(res.json()).toEqual(created);
    expect(await a.lastEvent('strategy-created')).toMatchObject({ data: created });

    expect((await t.send('PUT', `/api/admin/strategies/${name}`, { parameters: params })).statusCode).toBe(
      200,
    );
    const updated = { ...created, parameters: params };
    expect((await t.send('GET', `/api/admin/strategies/${name}`)).json()).toEqual(updated);
    expect(await a.lastEvent('strategy-updated')).toMatchObject({ data: updated, pre_data: created });

    const dep = await t.request({ method: 'POST', url: `/api/admin/strategies/${name}/deprecate` });
    expect(dep.statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/strategies/${name}`)).json().deprecated).toBe(true);
    expect(await a.lastEvent('strategy-deprecated')).toMatchObject({
      data: { deprecated: true },
      pre_data: { deprecated: false },
    });
    expect((await t.send('POST', `/api/admin/strategies/${name}/reactivate`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/strategies/${name}`)).json().deprecated).toBe(false);
    expect(await a.lastEvent('strategy-reactivated')).toMatchObject({ data: { deprecated: false } });

    expect((await t.send('DELETE', `/api/admin/strategies/${name}`)).statusCode).toBe(200);
    expect(await a.lastEvent('strategy-deleted')).toMatchObject({ data: null, pre_data: { name } });
    expect((await t.send('GET', `/api/admin/strategies/${name}`)).statusCode).toBe(404);
  });

  it.each([
    ['a name with a space', { name: 'a b', parameters: [] }, '/body/name'],
    ['missing parameters', { name: 'no-params' }, '/body/parameters'],
    [
      'an unknown parameter type',
      { name: 'bad-type', parameters: [{ name: 'x', type: 'date' }] },
      '/body/parameters/0/type',
    ],
  ])('create refuses %s with 400', async (_label, body, path) => {
    const before = await a.count('strategies');
    const res = await t.send('POST', '/api/admin/strategies', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe(path);
    expect(await a.count('strategies')).toBe(before);
  });

  it('refuses duplicates (409), built-ins (403), strategies in use (400) and unknown names (404), recording nothing', async () => {
    const name = uniqueName('strat');
    await t.send('POST', '/api/admin/strategies', { name, parameters: [] });
    const flag = uniqueName();
    await a.createFlag('default', { name: flag });
    await t.database.session((run) =>
      run(
        `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name) VALUES ($1, $2, 'development', $3)`,
        [uniqueName('s'), flag, name],
      ),
    );
    const before = await a.count('events');
    const dup = await t.send('POST', '/api/admin/strategies', { name, parameters: [] });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().name).toBe('NameExistsError');
    const builtIn = await t.send('PUT', '/api/admin/strategies/default', { parameters: [] });
    expect(builtIn.statusCode).toBe(403);
    expect(builtIn.json().name).toBe('InvalidOperationError');
    expect((await t.send('DELETE', '/api/admin/strategies/flexibleRollout')).statusCode).toBe(403);
    const inUse = await t.send('DELETE', `/api/admin/strategies/${name}`);
    expect(inUse.statusCode).toBe(400);
    expect(inUse.json().name).toBe('ValidationError');
    for (const [m, url, body] of [
      ['GET', '/api/admin/strategies/nope', undefined],
      ['PUT', '/api/admin/strategies/nope', { parameters: [] }],
      ['DELETE', '/api/admin/strategies/nope', undefined],
      ['POST', '/api/admin/strategies/nope/deprecate', undefined],
      ['POST', '/api/admin/strategies/nope/reactivate', undefined],
    ] as const) {
      const res = await t.send(m, url, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
    }
    expect(await a.count('strategies', 'name = $1', [name])).toBe(1);
    expect(await a.count('events')).toBe(before);
  });

  it('answers 401 without a token', async () => {
    expect(
      (await t.send('GET', '/api/admin/strategies', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
    expect(
      (
        await t.send(
          'POST',
          '/api/admin/strategies',
          { name: 'x', parameters: [] },
          { authorization: undefined },
        )
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await t.send('POST', '/api/admin/strategies/default/deprecate', undefined, {
          authorization: undefined,
        })
      ).statusCode,
    ).toBe(401);
  });
});
