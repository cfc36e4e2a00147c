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

describe('context fields', () => {
  it('lists the built-in fields', async () => {
    const res = await t.send('GET', '/api/admin/context');
    expect(res.statusCode).toBe(200);
    expect(res.json()[0]).toMatchObject({
      name: 'environment',
      sortOrder: 0,
      stickiness: false,
      legalValues: [],
      usedInFeatures: 0,
    });
    expect(res.json().map((f: { name: string }) => f.name)).toContain('userId');
  });

  it('creates, reads, updates (partial) and deletes with events', async () => {
    const name = uniqueName('ctx');
    const body = {
      name,
      description: 'tier',
      stickiness: true,
      sortOrder: 3,
      legalValues: [{ value: 'gold', description: 'best' }, { value: 'silver' }],
    };
    const res = await t.send('POST', '/api/admin/context', body);
    expect(res.statusCode).toBe(201);
    const created = { ...body, usedInFeatures: 0, usedInProjects: 0 };
    expect(res.json()).toMatchObject(created);
    expect(Date.parse(res.json().createdAt)).toBeGreaterThan(0);
    expect(res.json().project).toBeUndefined();
    expect(await a.lastEvent('context-field-created')).toMatchObject({
      data: { name, legalValues: body.legalValues },
      pre_data: null,
    });
    expect((await t.send('GET', `/api/admin/context/${name}`)).json()).toMatchObject(created);

    const upd = await t.send('PUT', `/api/admin/context/${name}`, {
      description: null,
      legalValues: [{ value: 'bronze' }],
    });
    expect(upd.statusCode).toBe(200);
    const after = (await t.send('GET', `/api/admin/context/${name}`)).json();
    expect(after).toMatchObject({
      description: null,
      stickiness: true,
      sortOrder: 3,
      legalValues: [{ value: 'bronze' }],
    });
    expect(await a.lastEvent('context-field-updated')).toMatchObject({
      data: { description: null },
      pre_data: { description: 'tier' },
    });

    expect((await t.send('DELETE', `/api/admin/context/${name}`)).statusCode).toBe(200);
    expect(await a.lastEvent('context-field-deleted')).toMatchObject({ data: null, pre_data: { name } });
    expect((await t.send('GET', `/api/admin/context/${name}`)).statusCode).toBe(404);
  });

  it('counts the flags and projects that constrain on a field', async () => {
    const name = uniqueName('ctx');
    await t.send('POST', '/api/admin/context', { name });
    const flag = uniqueName();
    await a.createFlag('default', { name: flag });
    await t.database.session((run) =>
      run(
        `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, constraints)
           VALUES ($1, $2, 'development', 'default', $3::jsonb)`,
        [uniqueName('s'), flag, JSON.stringify([{ contextName: name, operator: 'IN', values: ['x'] }])],
      ),
    );
    expect((await t.send('GET', `/api/admin/context/${name}`)).json()).toMatchObject({
      usedInFeatures: 1,
      usedInProjects: 1,
    });
  });

  it('validate: 200 free, 409 taken, 400 invalid', async () => {
    const free = await t.send('POST', '/api/admin/context/validate', { name: uniqueName('ctx') });
    expect(free.statusCode).toBe(200);
    const taken = await t.send('POST', '/api/admin/context/validate', { name: 'userId' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().name).toBe('NameExistsError');
    expect((await t.send('POST', '/api/admin/context/validate', { name: 'a b' })).statusCode).toBe(400);
  });

  it.each([
    ['a name with a space', { name: 'a b' }, '/body/name'],
    ['a missing name', {}, '/body/name'],
    [
      'a duplicate legal value',
      { name: 'dup-legal', legalValues: [{ value: 'x' }, { value: 'x' }] },
      '/body/legalValues/1/value',
    ],
    [
      'an empty legal value',
      { name: 'empty-legal', legalValues: [{ value: '' }] },
      '/body/legalValues/0/value',
    ],
    ['a non-boolean stickiness', { name: 'bad-stick', stickiness: 'yes' }, '/body/stickiness'],
    ['a fractional sortOrder', { name: 'bad-sort', sortOrder: 1.5 }, '/body/sortOrder'],
  ])('create refuses %s with 400 and stores nothing', async (_label, body, path) => {
    const before = await a.count('context_fields');
    const res = await t.send('POST', '/api/admin/context', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details[0].path).toBe(path);
    expect(await a.count('context_fields')).toBe(before);
  });

  it('answers 409 for a taken name, 404 for unknown fields and projects, recording nothing', async () => {
    const before = await a.count('events');
    expect((await t.send('POST', '/api/admin/context', { name: 'userId' })).statusCode).toBe(409);
    expect(
      (await t.send('POST', '/api/admin/context', { name: uniqueName('ctx'), project: 'no-such-project' }))
        .statusCode,
    ).toBe(404);
    expect((await t.send('GET', '/api/admin/context/nope')).statusCode).toBe(404);
    expect((await t.send('PUT', '/api/admin/context/nope', { description: 'x' })).statusCode).toBe(404);
    const del = await t.send('DELETE', '/api/admin/context/nope');
    expect(del.statusCode).toBe(404);
    expect(del.json().name).toBe('NotFoundError');
    expect(await a.count('events')).toBe(before);
  });

  it('answers 401 without a token', async () => {
    expect(
      (await t.send('GET', '/api/admin/context', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
    expect(
      (await t.send('POST', '/api/admin/context', { name: 'x1' }, { authorization: undefined })).statusCode,
    ).toBe(401);
    expect(
      (await t.send('DELETE', '/api/admin/context/userId', undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
  });
});

describe('legal values one at a time, and the strategies that use a field', () => {
  const field = async () => {
    const name = uniqueName('ctx');
    const res = await t.send('POST', '/api/admin/context', { name, legalValues: [{ value: 'gold' }] });
    expect(res.statusCode).toBe(201);
    return name;
  };
  const values = async (name: string) =>
    (await t.send('GET', `/api/admin/context/${name}`)).json().legalValues;
  const updates = async (name: string) =>
    (
      await t.database.session((run) =>
        run(
          `SELECT data, pre_data FROM events WHERE type = 'context-field-updated' AND data->>'name' = $1 ORDER BY id`,
          [name],
        ),
      )
    ).length;

  it('adds, re-describes and removes legal values, with an event for each change', async () => {
    const name = await field();
    expect(
      (await t.send('POST', `/api/admin/context/${name}/legal-values`, { value: 'silver' })).statusCode,
    ).toBe(200);
    await t.send('POST', `/api/admin/context/${name}/legal-values`, {
      value: 'gold',
      description: 'Top tier',
    });
    expect(await values(name)).toEqual([{ value: 'gold', description: 'Top tier' }, { value: 'silver' }]);
    expect((await t.send('DELETE', `/api/admin/context/${name}/legal-values/silver`)).statusCode).toBe(200);
    expect(await values(name)).toEqual([{ value: 'gold', description: 'Top tier' }]);
    expect(await updates(name)).toBe(3);
    // Removing a value the field does not have changes nothing and records nothing.
    expect((await t.send('DELETE', `/api/admin/context/${name}/legal-values/bronze`)).statusCode).toBe(200);
    expect(await updates(name)).toBe(3);
    expect(
      (await t.send('POST', '/api/admin/context/no-such-field/legal-values', { value: 'x' })).statusCode,
    ).toBe(404);
    expect(
      (await t.send('POST', `/api/admin/context/${name}/legal-values`, { description: 'no value' }))
        .statusCode,
    ).toBe(400);
  });

  it('lists the strategies with a constraint on the field', async () => {
    const name = await field();
    const flag = uniqueName('ctxflag');
    expect((await t.send('POST', '/api/admin/projects/default/features', { name: flag })).statusCode).toBe(
      200,
    );
    const strategy = await t.send(
      'POST',
      `/api/admin/projects/default/features/${flag}/environments/development/strategies`,
      {
        name: 'default',
        constraints: [{ contextName: name, operator: 'IN', values: ['gold'] }],
      },
    );
    await t.send('POST', `/api/admin/projects/default/features/${flag}/environments/production/strategies`, {
      name: 'default',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u'] }],
    });
    const res = await t.send('GET', `/api/admin/context/${name}/strategies`);
    expect(res.json()).toEqual({
      strategies: [
        {
          id: strategy.json().id,
          featureName: flag,
          projectId: 'default',
          environment: 'development',
          strategyName: 'default',
        },
      ],
    });
    expect((await t.send('GET', '/api/admin/context/no-such-field/strategies')).json()).toEqual({
      strategies: [],
    });
  });
});

describe('project context fields', () => {
  it("manages a project's own fields under the project, and hides other fields there", async () => {
    const project = uniqueName('ctxp');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    const base = `/api/admin/projects/${project}/context`;
    const name = uniqueName('pctx');
    const created = await t.send('POST', base, { name, legalValues: [{ value: 'a' }] });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name, project });
    const global = uniqueName('gctx');
    await t.send('POST', '/api/admin/context', { name: global });

    expect((await t.send('GET', base)).json().map((f: { name: string }) => f.name)).toEqual([name]);
    // Unleash's strategy form asks with include=root to offer the root fields for constraints too.
    const withRoot = (await t.send('GET', `${base}?include=root`))
      .json()
      .map((f: { name: string }) => f.name);
    expect(withRoot).toEqual(expect.arrayContaining([name, global, 'userId', 'environment']));
    const other = (await t.send('GET', '/api/admin/context')).json() as { name: string; project?: string }[];
    const foreign = other.filter((f) => f.project && f.project !== project).map((f) => f.name);
    expect(withRoot.filter((n: string) => foreign.includes(n))).toEqual([]);
    expect(
      (await t.send('GET', `${base}?include=project`)).json().map((f: { name: string }) => f.name),
    ).toEqual([name]);
    expect((await t.send('GET', `${base}/${name}`)).json()).toMatchObject({ name, project });
    expect((await t.send('GET', `${base}/${global}`)).statusCode).toBe(404);
    expect((await t.send('PUT', `${base}/${global}`, { description: 'x' })).statusCode).toBe(404);
    expect((await t.send('DELETE', `${base}/${global}`)).statusCode).toBe(404);

    expect((await t.send('PUT', `${base}/${name}`, { description: 'Team field' })).statusCode).toBe(200);
    expect((await t.send('PUT', `${base}/${name}`, { project: 'default' })).statusCode).toBe(400);
    expect((await t.send('POST', `${base}/${name}/legal-values`, { value: 'b' })).statusCode).toBe(200);
    expect((await t.send('DELETE', `${base}/${name}/legal-values/a`)).statusCode).toBe(200);
    expect((await t.send('GET', `${base}/${name}`)).json()).toMatchObject({
      description: 'Team field',
      legalValues: [{ value: 'b' }],
      project,
    });
    expect((await t.send('POST', `${base}/validate`, { name })).statusCode).toBe(409);
    expect((await t.send('POST', `${base}/validate`, { name: uniqueName('free') })).statusCode).toBe(200);
    expect((await t.send('POST', base, { name: uniqueName('x'), project: 'default' })).statusCode).toBe(400);

    const flag = uniqueName('pflag');
    await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag });
    const strategy = await t.send(
      'POST',
      `/api/admin/projects/${project}/features/${flag}/environments/development/strategies`,
      {
        name: 'default',
        constraints: [{ contextName: name, operator: 'IN', values: ['b'] }],
      },
    );
    expect(
      (await t.send('GET', `${base}/${name}/strategies`)).json().strategies.map((s: { id: string }) => s.id),
    ).toEqual([strategy.json().id]);
    expect((await t.send('DELETE', `${base}/${name}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/context/${name}`)).statusCode).toBe(404);
  });
});
