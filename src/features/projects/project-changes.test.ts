import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { testConfig } from '../../config.js';
import { setFavorite } from './projects.service.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

interface Ev {
  type: string;
  project: string | null;
  featureName: string | null;
  environment: string | null;
  data: Record<string, unknown> | null;
  preData: Record<string, unknown> | null;
}
const projectEvents = async (id: string) =>
  (await t.request({ method: 'GET', url: `/api/admin/events?project=${id}` })).json().events as Ev[];
const createProject = async (body: Record<string, unknown> = {}) => {
  const id = uniqueName('proj');
  const res = await t.send('POST', '/api/admin/projects', { id, name: `Project ${id}`, ...body });
  if (res.statusCode !== 201) throw new Error(`createProject ${res.statusCode}: ${res.body}`);
  return id;
};
const overview = async (id: string) => (await t.send('GET', `/api/admin/projects/${id}`)).json();
const noBody = (method: string, url: string) =>
  t.app.inject({
    method: method as 'POST',
    url,
    headers: { authorization: '*:*.test-admin-token-0123456789abcdef' },
  });

describe('PUT /api/admin/projects/:projectId and /settings', () => {
  it('changes the properties sent, keeps the rest and records project-updated', async () => {
    const id = await createProject({ description: 'old', featureNaming: { pattern: 'x.*', example: 'xy' } });
    const res = await t.send('PUT', `/api/admin/projects/${id}`, { name: 'Renamed', featureLimit: 7 });
    expect(res.statusCode).toBe(200);
    expect(await overview(id)).toMatchObject({
      name: 'Renamed',
      description: 'old',
      featureLimit: 7,
      featureNaming: { pattern: 'x.*', example: 'xy', description: null },
    });
    const [ev] = await projectEvents(id);
    expect(ev).toMatchObject({
      type: 'project-updated',
      data: { name: 'Renamed', featureLimit: 7, description: 'old' },
      preData: { name: `Project ${id}`, featureLimit: null, description: 'old' },
    });
  });

  it('settings: null clears featureNaming and featureLimit, mode and stickiness change', async () => {
    const id = await createProject({ featureLimit: 3, featureNaming: { pattern: 'x.*' } });
    const res = await t.send('PUT', `/api/admin/projects/${id}/settings`, {
      mode: 'private',
      defaultStickiness: 'sessionId',
      featureLimit: null,
      featureNaming: null,
    });
    expect(res.statusCode).toBe(200);
    expect(await overview(id)).toMatchObject({
      mode: 'private',
      defaultStickiness: 'sessionId',
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
    });
    expect((await projectEvents(id))[0]?.type).toBe('project-updated');
  });

  it('the naming pattern set applies to new flags', async () => {
    const id = await createProject();
    await t.send('PUT', `/api/admin/projects/${id}/settings`, { featureNaming: { pattern: 'ok-[0-9]+' } });
    const bad = await t.send('POST', `/api/admin/projects/${id}/features`, { name: uniqueName() });
    expect(bad.statusCode).toBe(400);
    expect(
      (await t.send('POST', `/api/admin/projects/${id}/features`, { name: 'ok-1234567' })).statusCode,
    ).toBe(200);
  });

  it.each([
    ['PUT', ''],
    ['PUT', '/settings'],
  ])(
    '%s%s refuses a bad pattern (400), an unknown project (404), no token (401), changing nothing',
    async (_m, suffix) => {
      const id = await createProject();
      const before = await a.count('events');
      const bad = await t.send('PUT', `/api/admin/projects/${id}${suffix}`, {
        featureNaming: { pattern: 'a b' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details[0].path).toBe('/body/featureNaming/pattern');
      const badLimit = await t.send('PUT', `/api/admin/projects/${id}${suffix}`, { featureLimit: 'x' });
      expect(badLimit.statusCode).toBe(400);
      expect(badLimit.json().name).toBe('ValidationError');
      const unknown = await t.send('PUT', `/api/admin/projects/nope${suffix}`, { mode: 'open' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().name).toBe('NotFoundError');
      const anon = await t.send(
        'PUT',
        `/api/admin/projects/${id}${suffix}`,
        { mode: 'open' },
        { authorization: undefined },
      );
      expect(anon.statusCode).toBe(401);
      expect(await a.count('events')).toBe(before);
      expect((await overview(id)).featureNaming.pattern).toBeNull();
    },
  );
});

describe('DELETE /api/admin/projects/:projectId', () => {
  it('deletes a project whose flags are all archived, with them, recording the events', async () => {
    const id = await createProject();
    const flag = uniqueName();
    await a.createFlag(id, { name: flag });
    await a.updateFlag(id, flag, { archived: true });
    const res = await t.send('DELETE', `/api/admin/projects/${id}`);
    expect(res.statusCode).toBe(200);
    expect(await a.count('projects', 'id = $1', [id])).toBe(0);
    expect(await a.count('features', 'name = $1', [flag])).toBe(0);
    const types = (await projectEvents(id)).map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['project-deleted', 'feature-deleted']);
    const [deleted, flagDeleted] = await projectEvents(id);
    expect(deleted?.preData).toMatchObject({ id, environments: ['development', 'production'] });
    // The flag's event is the one deleting a single archived flag records: the flag as it was.
    expect(flagDeleted?.preData).toMatchObject({
      name: flag,
      project: id,
      type: 'release',
      archived: true,
      archivedAt: expect.any(String),
    });
    expect((await t.send('GET', `/api/admin/projects/${id}`)).statusCode).toBe(404);
  });

  it('refuses a project with active flags and the default project (403 InvalidOperationError)', async () => {
    const id = await createProject();
    await a.createFlag(id, { name: uniqueName() });
    const before = await a.count('events');
    for (const target of [id, 'default']) {
      const res = await t.send('DELETE', `/api/admin/projects/${target}`);
      expect(res.statusCode).toBe(403);
      expect(res.json().name).toBe('InvalidOperationError');
    }
    expect(await a.count('projects', 'id = ANY($1)', [[id, 'default']])).toBe(2);
    expect(await a.count('events')).toBe(before);
  });

  it('answers 404 for an unknown project and 401 without a token', async () => {
    expect((await t.send('DELETE', '/api/admin/projects/nope')).statusCode).toBe(404);
    const id = await createProject();
    expect(
      (await t.send('DELETE', `/api/admin/projects/${id}`, undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
    expect(await a.count('projects', 'id = $1', [id])).toBe(1);
  });
});

describe('project environments', () => {
  const newEnv = async () => {
    const name = uniqueName('env');
    const res = await t.send('POST', '/api/admin/environments', { name, type: 'test' });
    if (res.statusCode !== 201) throw new Error(res.body);
    return name;
  };

  it('adds an environment: every flag gets a disabled row; records project-environment-added', async () => {
    const env = await newEnv();
    const id = await createProject({ environments: ['development'] });
    const flag = uniqueName();
    await a.createFlag(id, { name: flag });
    const res = await t.send('POST', `/api/admin/projects/${id}/environments`, { environment: env });
    expect(res.statusCode).toBe(200);
    const got = (await a.getFlag(id, flag)).json();
    expect(got.environments.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled])).toEqual([
      ['development', false],
      [env, false],
    ]);
    expect((await projectEvents(id))[0]).toMatchObject({
      type: 'project-environment-added',
      project: id,
      environment: env,
    });
  });

  it('refuses a duplicate (409), unknown environment or project (404), bad body (400), no token (401)', async () => {
    const id = await createProject();
    const before = await a.count('events');
    const cases: [string, unknown, number, string][] = [
      [`/api/admin/projects/${id}/environments`, { environment: 'development' }, 409, 'NameExistsError'],
      [`/api/admin/projects/${id}/environments`, { environment: 'nope' }, 404, 'NotFoundError'],
      ['/api/admin/projects/nope/environments', { environment: 'development' }, 404, 'NotFoundError'],
      [`/api/admin/projects/${id}/environments`, {}, 400, 'ValidationError'],
    ];
    for (const [url, body, status, name] of cases) {
      const res = await t.send('POST', url, body);
      expect([res.statusCode, res.json().name]).toEqual([status, name]);
    }
    const anon = await t.send(
      'POST',
      `/api/admin/projects/${id}/environments`,
      { environment: 'x' },
      { authorization: undefined },
    );
    expect(anon.statusCode).toBe(401);
    expect(await a.count('events')).toBe(before);
  });

  it('removes an environment with the flags configuration there; records project-environment-removed', async () => {
    const id = await createProject({ environments: ['development', 'production'] });
    const flag = uniqueName();
    await a.createFlag(id, { name: flag });
    const res = await t.send('DELETE', `/api/admin/projects/${id}/environments/production`);
    expect(res.statusCode).toBe(200);
    expect(await a.count('feature_environments', 'feature_name = $1', [flag])).toBe(1);
    expect((await projectEvents(id))[0]).toMatchObject({
      type: 'project-environment-removed',
      environment: 'production',
    });
    const before = await a.count('events');
    const again = await t.send('DELETE', `/api/admin/projects/${id}/environments/production`);
    expect([again.statusCode, again.json().name]).toEqual([404, 'NotFoundError']);
    const last = await t.send('DELETE', `/api/admin/projects/${id}/environments/development`);
    expect([last.statusCode, last.json().name]).toEqual([403, 'InvalidOperationError']);
    expect(await a.count('feature_environments', 'feature_name = $1', [flag])).toBe(1);
    expect((await t.send('DELETE', '/api/admin/projects/nope/environments/development')).statusCode).toBe(
      404,
    );
    expect(await a.count('events')).toBe(before);
  });

  it('sets the default strategy (POST and PUT); records default-strategy-updated with preData', async () => {
    const id = await createProject({ environments: ['development', 'production'] });
    const url = `/api/admin/projects/${id}/environments/production/default-strategy`;
    const first = {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: '' },
    };
    const res = await t.send('POST', url, first);
    expect(res.statusCode).toBe(200);
    const stored = {
      name: 'flexibleRollout',
      title: null,
      disabled: false,
      sortOrder: 0,
      constraints: [],
      variants: [],
      parameters: first.parameters,
      segments: [],
    };
    expect(res.json()).toEqual(stored);
    const second = await t.send('PUT', url, { name: 'default' });
    expect(second.statusCode).toBe(200);
    expect((await overview(id)).environments[1]).toEqual({
      environment: 'production',
      defaultStrategy: { ...stored, name: 'default', parameters: {} },
    });
    const [ev, prev] = await projectEvents(id);
    expect(prev).toMatchObject({
      type: 'default-strategy-updated',
      environment: 'production',
      data: stored,
      preData: null,
    });
    expect(ev).toMatchObject({
      type: 'default-strategy-updated',
      data: { name: 'default' },
      preData: stored,
    });
  });

  it('refuses an unknown strategy or segment (400), unknown project or environment (404)', async () => {
    const id = await createProject();
    const before = await a.count('events');
    const url = `/api/admin/projects/${id}/environments/production/default-strategy`;
    const bad = await t.send('POST', url, { name: 'no-such-strategy' });
    expect([bad.statusCode, bad.json().details[0].path]).toEqual([400, '/body/name']);
    const seg = await t.send('POST', url, { name: 'default', segments: [999999] });
    expect([seg.statusCode, seg.json().details[0].path]).toEqual([400, '/body/segments/0']);
    // The same rules as a flag's strategy: constraint values and variant weights are checked.
    const constraint = await t.send('POST', url, {
      name: 'default',
      constraints: [{ contextName: 'version', operator: 'SEMVER_EQ', value: 'not-semver' }],
    });
    expect([constraint.statusCode, constraint.json().details[0].path]).toEqual([
      400,
      '/body/constraints/0/value',
    ]);
    const operator = await t.send('POST', url, {
      name: 'default',
      constraints: [{ contextName: 'a', operator: 'LIKE', values: ['x'] }],
    });
    expect(operator.statusCode).toBe(400);
    const weights = await t.send('POST', url, {
      name: 'default',
      variants: [{ name: 'a', weight: 1200, weightType: 'fix', stickiness: 'default' }],
    });
    expect(weights.statusCode).toBe(400);
    const params = await t.send('POST', url, { name: 'default', parameters: { rollout: 5 } });
    expect([params.statusCode, params.json().name]).toEqual([400, 'ValidationError']);
    expect(
      (
        await t.send('POST', `/api/admin/projects/nope/environments/production/default-strategy`, {
          name: 'default',
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.send('POST', `/api/admin/projects/${id}/environments/nope/default-strategy`, {
          name: 'default',
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.send('POST', url, { name: 'default' }, { authorization: undefined })).statusCode).toBe(
      401,
    );
    expect(await a.count('events')).toBe(before);
  });
});

describe('project favorites', () => {
  it('accepts POST/DELETE without a body; for an API token nothing is stored', async () => {
    const id = await createProject();
    const before = await a.count('events');
    expect((await noBody('POST', `/api/admin/projects/${id}/favorites`)).statusCode).toBe(200);
    expect((await noBody('DELETE', `/api/admin/projects/${id}/favorites`)).statusCode).toBe(200);
    expect(await a.count('favorite_projects')).toBe(0);
    expect(await a.count('events')).toBe(before);
    expect((await noBody('POST', '/api/admin/projects/nope/favorites')).statusCode).toBe(404);
    const anon = await t.app.inject({ method: 'POST', url: `/api/admin/projects/${id}/favorites` });
    expect(anon.statusCode).toBe(401);
  });

  it('stores a user favorite once and records project-favorited / project-unfavorited', async () => {
    const id = await createProject();
    const [user] = await t.database.session((run) =>
      run(`INSERT INTO users (name) VALUES ('fav user') RETURNING id`),
    );
    const userId = Number(user?.id);
    const deps = { database: t.database, config: testConfig(), now: () => new Date() };
    const principal = { name: 'fav user', userId, kind: 'user' as const, grants: [] };
    await setFavorite(deps, id, true, principal);
    await setFavorite(deps, id, true, principal);
    expect(await a.count('favorite_projects', 'project = $1 AND user_id = $2', [id, userId])).toBe(1);
    await setFavorite(deps, id, false, principal);
    expect(await a.count('favorite_projects', 'project = $1', [id])).toBe(0);
    expect((await projectEvents(id)).slice(0, 2).map((e) => e.type)).toEqual([
      'project-unfavorited',
      'project-favorited',
    ]);
  });
});
