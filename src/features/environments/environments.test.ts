import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

/** A request with no body and no Content-Type, as `curl -X POST` sends it. */
const bare = (method: string, url: string) =>
  t.app.inject({ method: method as 'POST', url, headers: { authorization: ADMIN_TOKEN } });
const envEvents = async (name: string) => {
  const rows = await t.database.session((run) =>
    run('SELECT type, data, pre_data FROM events WHERE environment = $1 ORDER BY id DESC', [name]),
  );
  return rows as {
    type: string;
    data: Record<string, unknown> | null;
    pre_data: Record<string, unknown> | null;
  }[];
};
const create = async (body: Record<string, unknown> = {}) => {
  const name = uniqueName('env');
  const res = await t.send('POST', '/api/admin/environments', { name, type: 'test', ...body });
  if (res.statusCode !== 201) throw new Error(res.body);
  return name;
};

describe('GET /api/admin/environments', () => {
  it('lists environments by sort order with their counts', async () => {
    const res = await t.send('GET', '/api/admin/environments');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.version).toBe(1);
    expect(body.environments.slice(0, 2)).toEqual([
      {
        name: 'development',
        type: 'development',
        enabled: true,
        protected: false,
        sortOrder: 2,
        projectCount: 1,
        apiTokenCount: 0,
        enabledToggleCount: 0,
      },
      {
        name: 'production',
        type: 'production',
        enabled: true,
        protected: false,
        sortOrder: 3,
        projectCount: 1,
        apiTokenCount: 0,
        enabledToggleCount: 0,
      },
    ]);
  });

  it('answers 401 without a token', async () => {
    expect(
      (await t.send('GET', '/api/admin/environments', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });
});

describe('POST /api/admin/environments', () => {
  it('creates an environment and records environment-created', async () => {
    const name = uniqueName('env');
    const res = await t.send('POST', '/api/admin/environments', { name, type: 'staging', sortOrder: 1 });
    expect(res.statusCode).toBe(201);
    const env = { name, type: 'staging', enabled: true, protected: false, sortOrder: 1 };
    expect(res.json()).toEqual({ ...env, projectCount: 0, apiTokenCount: 0, enabledToggleCount: 0 });
    const [ev] = await envEvents(name);
    expect(ev).toEqual({ type: 'environment-created', data: env, pre_data: null });
    expect((await t.send('GET', '/api/admin/environments')).json().environments[0].name).toBe(name);
  });

  it('refuses a duplicate (409), bad names and types (400), no token (401), changing nothing', async () => {
    const name = await create();
    const before = await a.count('events');
    const dup = await t.send('POST', '/api/admin/environments', { name, type: 'other' });
    expect([dup.statusCode, dup.json().name]).toEqual([409, 'NameExistsError']);
    for (const [body, path] of [
      [{ name: 'has space', type: 'x' }, '/body/name'],
      [{ name: 'a/b', type: 'x' }, '/body/name'],
      [{ name: 'x'.repeat(101), type: 'x' }, '/body/name'],
      [{ type: 'x' }, '/body/name'],
      [{ name: uniqueName('e') }, '/body/type'],
      [{ name: uniqueName('e'), type: 'x', sortOrder: 'first' }, '/body/sortOrder'],
    ] as const) {
      const res = await t.send('POST', '/api/admin/environments', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().name).toBe('ValidationError');
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const anon = await t.send(
      'POST',
      '/api/admin/environments',
      { name: uniqueName('e'), type: 'x' },
      { authorization: undefined },
    );
    expect(anon.statusCode).toBe(401);
    expect(await a.count('events')).toBe(before);
    expect((await t.send('GET', `/api/admin/environments/${name}`)).json().type).toBe('test');
  });
});

describe('GET /api/admin/environments/:name', () => {
  it('answers the environment, 404 when unknown', async () => {
    const name = await create();
    expect((await t.send('GET', `/api/admin/environments/${name}`)).json()).toMatchObject({
      name,
      type: 'test',
      enabled: true,
    });
    const res = await t.send('GET', '/api/admin/environments/nope');
    expect([res.statusCode, res.json().name]).toEqual([404, 'NotFoundError']);
  });
});

describe('PUT /api/admin/environments/update/:name', () => {
  it('changes type and sortOrder (absent keeps) and records environment-updated', async () => {
    const name = await create({ sortOrder: 50 });
    const res = await t.send('PUT', `/api/admin/environments/update/${name}`, { type: 'production' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name, type: 'production', sortOrder: 50 });
    const [ev] = await envEvents(name);
    expect(ev).toMatchObject({
      type: 'environment-updated',
      data: { type: 'production' },
      pre_data: { type: 'test' },
    });
  });

  it('refuses unknown (404), protected (403), bad body (400), no token (401)', async () => {
    const name = await create();
    await t.database.session((run) =>
      run('UPDATE environments SET protected = true WHERE name = $1', [name]),
    );
    const before = await a.count('events');
    const unknown = await t.send('PUT', '/api/admin/environments/update/nope', { type: 'x' });
    expect([unknown.statusCode, unknown.json().name]).toEqual([404, 'NotFoundError']);
    const prot = await t.send('PUT', `/api/admin/environments/update/${name}`, { type: 'x' });
    expect([prot.statusCode, prot.json().name]).toEqual([403, 'InvalidOperationError']);
    const bad = await t.send('PUT', `/api/admin/environments/update/${name}`, { sortOrder: 1.5 });
    expect([bad.statusCode, bad.json().details[0].path]).toEqual([400, '/body/sortOrder']);
    const anon = await t.send(
      'PUT',
      `/api/admin/environments/update/${name}`,
      { type: 'x' },
      { authorization: undefined },
    );
    expect(anon.statusCode).toBe(401);
    expect(await a.count('events')).toBe(before);
  });
});

describe('DELETE /api/admin/environments/:name', () => {
  it('deletes the environment with its configuration and records environment-deleted', async () => {
    const name = await create();
    const project = uniqueName('proj');
    await t.send('POST', '/api/admin/projects', { id: project, name: 'p', environments: [name] });
    const flag = uniqueName();
    await a.createFlag(project, { name: flag });
    const res = await t.send('DELETE', `/api/admin/environments/${name}`);
    expect(res.statusCode).toBe(200);
    expect(await a.count('environments', 'name = $1', [name])).toBe(0);
    expect(await a.count('project_environments', 'environment_name = $1', [name])).toBe(0);
    expect(await a.count('feature_environments', 'environment = $1', [name])).toBe(0);
    const [ev] = await envEvents(name);
    expect(ev).toMatchObject({ type: 'environment-deleted', data: null, pre_data: { name, type: 'test' } });
  });

  it('refuses a protected environment (403) and an unknown one (404), changing nothing', async () => {
    const name = await create();
    await t.database.session((run) =>
      run('UPDATE environments SET protected = true WHERE name = $1', [name]),
    );
    const before = await a.count('events');
    const prot = await t.send('DELETE', `/api/admin/environments/${name}`);
    expect([prot.statusCode, prot.json().name]).toEqual([403, 'InvalidOperationError']);
    expect((await t.send('DELETE', '/api/admin/environments/nope')).statusCode).toBe(404);
    expect(
      (await t.send('DELETE', `/api/admin/environments/${name}`, undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
    expect(await a.count('environments', 'name = $1', [name])).toBe(1);
    expect(await a.count('events')).toBe(before);
  });
});

describe('POST /api/admin/environments/:name/on|off', () => {
  it('toggles without a body (204) and records environment-updated only on change', async () => {
    const name = await create();
    expect((await bare('POST', `/api/admin/environments/${name}/off`)).statusCode).toBe(204);
    expect((await t.send('GET', `/api/admin/environments/${name}`)).json().enabled).toBe(false);
    expect((await bare('POST', `/api/admin/environments/${name}/off`)).statusCode).toBe(204);
    expect((await bare('POST', `/api/admin/environments/${name}/on`)).statusCode).toBe(204);
    const events = await envEvents(name);
    expect(events.slice(0, 3).map((e) => [e.type, e.data?.enabled, e.pre_data?.enabled])).toEqual([
      ['environment-updated', true, false],
      ['environment-updated', false, true],
      ['environment-created', true, undefined],
    ]);
  });

  it('answers 404 for an unknown environment, 401 without a token', async () => {
    const res = await bare('POST', '/api/admin/environments/nope/on');
    expect([res.statusCode, res.json().name]).toEqual([404, 'NotFoundError']);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/admin/environments/development/off' })).statusCode,
    ).toBe(401);
  });

  it('refuses to disable the last enabled environment (400)', async () => {
    const enabled = (await t.send('GET', '/api/admin/environments'))
      .json()
      .environments.filter((e: { enabled: boolean }) => e.enabled);
    const [last, ...others] = enabled.map((e: { name: string }) => e.name);
    for (const name of others) await bare('POST', `/api/admin/environments/${name}/off`);
    const before = await a.count('events');
    const res = await bare('POST', `/api/admin/environments/${last}/off`);
    expect([res.statusCode, res.json().name]).toEqual([400, 'ValidationError']);
    expect(await a.count('events')).toBe(before);
    for (const name of others) await bare('POST', `/api/admin/environments/${name}/on`);
  });
});

describe('PUT /api/admin/environments/sort-order', () => {
  it('reorders the named environments only, with an event for each change', async () => {
    const [first, second] = [await create({ sortOrder: 50 }), await create({ sortOrder: 60 })];
    const res = await t.send('PUT', '/api/admin/environments/sort-order', { [first]: 61, [second]: 60 });
    expect(res.statusCode).toBe(200);
    const order = async (name: string) =>
      (await t.send('GET', `/api/admin/environments/${name}`)).json().sortOrder;
    expect([await order(first), await order(second), await order('production')]).toEqual([61, 60, 3]);
    expect((await envEvents(first))[0]).toMatchObject({
      type: 'environment-updated',
      data: { sortOrder: 61 },
      pre_data: { sortOrder: 50 },
    });
    // Unchanged: no event.
    expect((await envEvents(second))[0]?.type).toBe('environment-created');
  });

  it('changes nothing when a name is unknown, and refuses non-integer orders', async () => {
    const name = await create({ sortOrder: 70 });
    const res = await t.send('PUT', '/api/admin/environments/sort-order', { [name]: 1, 'no-such-env': 2 });
    expect(res.statusCode).toBe(404);
    expect((await t.send('GET', `/api/admin/environments/${name}`)).json().sortOrder).toBe(70);
    for (const body of [{ [name]: 'first' }, { [name]: 1.5 }, [1, 2]]) {
      expect((await t.send('PUT', '/api/admin/environments/sort-order', body)).statusCode).toBe(400);
    }
  });
});

describe('GET /api/admin/environments/project/:projectId', () => {
  it("lists every environment with whether the project has it and the project's counts there", async () => {
    const project = uniqueName('envp');
    const env = await create({ sortOrder: 80 });
    expect(
      (
        await t.send('POST', '/api/admin/projects', {
          id: project,
          name: project,
          environments: ['production'],
        })
      ).statusCode,
    ).toBe(201);
    const flag = uniqueName('f');
    await a.createFlag(project, { name: flag });
    await t.send('POST', `/api/admin/projects/${project}/features/${flag}/environments/production/on`);
    await t.send('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('tok'),
      type: 'client',
      environment: 'production',
      projects: [project],
    });
    const res = await t.send('GET', `/api/admin/environments/project/${project}`);
    expect(res.statusCode).toBe(200);
    const byName = Object.fromEntries(res.json().environments.map((e: { name: string }) => [e.name, e]));
    expect(byName.production).toEqual({
      name: 'production',
      type: 'production',
      enabled: true,
      protected: false,
      sortOrder: 3,
      projectApiTokenCount: 1,
      projectEnabledToggleCount: 1,
    });
    expect(byName.development).toMatchObject({ enabled: false, projectEnabledToggleCount: 0 });
    expect(byName[env]).toMatchObject({ enabled: false, sortOrder: 80 });
    expect((await t.send('GET', '/api/admin/environments/project/no-such-project')).statusCode).toBe(404);
  });
});
