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

const NO_AUTH = { authorization: undefined };
const depsUrl = (child: string, project = 'default') =>
  `/api/admin/projects/${project}/features/${child}/dependencies`;
const add = (child: string, body: object, project = 'default', headers = {}) =>
  t.request({ method: 'POST', url: depsUrl(child, project), payload: body, headers });
const del = (url: string, headers = {}) => t.request({ method: 'DELETE', url, headers });
const flag = async (project = 'default') => {
  const name = uniqueName();
  await a.createFlag(project, { name });
  return name;
};
const sql = (text: string, params: unknown[] = []) => t.database.session((run) => run(text, params));

/** Asserts the request was refused with the status and error name and left nothing behind. */
async function refused(
  request: () => Promise<{ statusCode: number; json: () => { name: string } }>,
  status: number,
  name: string,
) {
  const events = await a.count('events');
  const rows = await a.count('feature_dependencies');
  const res = await request();
  expect(res.statusCode).toBe(status);
  expect(res.json().name).toBe(name);
  expect(await a.count('events')).toBe(events);
  expect(await a.count('feature_dependencies')).toBe(rows);
}

describe('POST …/features/:child/dependencies', () => {
  it('adds a dependency: 200 no body, shown on both flags, feature-dependency-added', async () => {
    const parent = await flag();
    const child = await flag();
    const res = await add(child, { feature: parent, variants: ['b', 'a'] });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect((await a.getFlag('default', child)).json().dependencies).toEqual([
      { feature: parent, enabled: true, variants: ['a', 'b'] },
    ]);
    expect((await a.getFlag('default', parent)).json().children).toEqual([child]);
    expect((await a.flagEvents(child)).events[0]).toMatchObject({
      type: 'feature-dependency-added',
      data: { feature: parent, enabled: true, variants: ['a', 'b'] },
    });
    // Adding again changes the options of the same dependency.
    expect((await add(child, { feature: parent, enabled: false })).statusCode).toBe(200);
    expect((await a.getFlag('default', child)).json().dependencies).toEqual([
      { feature: parent, enabled: false },
    ]);
    expect((await a.flagEvents(child)).events[0]?.data).toEqual({ feature: parent, enabled: false });
  });

  it('400: variants with enabled false, missing feature', async () => {
    const parent = await flag();
    const child = await flag();
    await refused(
      () => add(child, { feature: parent, enabled: false, variants: ['a'] }),
      400,
      'ValidationError',
    );
    const res = await add(child, { feature: parent, enabled: false, variants: ['a'] });
    expect(res.json().details[0].path).toBe('/body/variants');
    await refused(() => add(child, { enabled: true }), 400, 'ValidationError');
  });

  it('404: unknown child, child in another project, unknown parent', async () => {
    const parent = await flag();
    const child = await flag();
    await refused(() => add(uniqueName(), { feature: parent }), 404, 'NotFoundError');
    await refused(() => add(child, { feature: parent }, 'other'), 404, 'NotFoundError');
    await refused(() => add(child, { feature: uniqueName() }), 404, 'NotFoundError');
  });

  it('403: self, archived parent, parent in another project, transitive in either direction', async () => {
    const grand = await flag();
    const parent = await flag();
    const child = await flag();
    await refused(() => add(child, { feature: child }), 403, 'InvalidOperationError');
    const archived = await flag();
    await t.request({ method: 'DELETE', url: `/api/admin/projects/default/features/${archived}` });
    await refused(() => add(child, { feature: archived }), 403, 'InvalidOperationError');
    const project = uniqueName('proj');
    await sql(`INSERT INTO projects (id, name) VALUES ($1, $1)`, [project]);
    const elsewhere = await flag(project);
    await refused(() => add(child, { feature: elsewhere }), 403, 'InvalidOperationError');
    expect((await add(child, { feature: parent })).statusCode).toBe(200);
    // parent is now a parent: it cannot get a parent; child has a parent: it cannot become one.
    await refused(() => add(parent, { feature: grand }), 403, 'InvalidOperationError');
    const other = await flag();
    await refused(() => add(other, { feature: child }), 403, 'InvalidOperationError');
    await refused(() => add(parent, { feature: child }), 403, 'InvalidOperationError');
  });

  it('401 without a token', async () => {
    const parent = await flag();
    const child = await flag();
    expect((await add(child, { feature: parent }, 'default', NO_AUTH)).statusCode).toBe(401);
  });
});

describe('DELETE dependencies', () => {
  it('removes one dependency with feature-dependency-removed', async () => {
    const p1 = await flag();
    const p2 = await flag();
    const child = await flag();
    await add(child, { feature: p1 });
    await add(child, { feature: p2 });
    const res = await del(`${depsUrl(child)}/${p1}`);
    expect(res.statusCode).toBe(200);
    expect((await a.getFlag('default', child)).json().dependencies).toEqual([{ feature: p2, enabled: true }]);
    expect((await a.flagEvents(child)).events[0]).toMatchObject({
      type: 'feature-dependency-removed',
      data: { feature: p1 },
    });
    // Removing what is not there: 200, nothing recorded.
    const events = await a.count('events');
    expect((await del(`${depsUrl(child)}/${p1}`)).statusCode).toBe(200);
    expect(await a.count('events')).toBe(events);
  });

  it('removes all with feature-dependencies-removed', async () => {
    const p1 = await flag();
    const p2 = await flag();
    const child = await flag();
    await add(child, { feature: p1 });
    await add(child, { feature: p2 });
    expect((await del(depsUrl(child))).statusCode).toBe(200);
    expect((await a.getFlag('default', child)).json().dependencies).toEqual([]);
    expect((await a.flagEvents(child)).events[0]).toMatchObject({
      type: 'feature-dependencies-removed',
      preData: { features: [p1, p2].sort() },
    });
  });

  it('404 for an unknown child or project, 401 without a token', async () => {
    const parent = await flag();
    const child = await flag();
    await add(child, { feature: parent });
    await refused(() => del(depsUrl(uniqueName())), 404, 'NotFoundError');
    await refused(() => del(`${depsUrl(child, 'other')}/${parent}`), 404, 'NotFoundError');
    expect((await del(depsUrl(child), NO_AUTH)).statusCode).toBe(401);
    expect(await a.count('feature_dependencies', 'child = $1', [child])).toBe(1);
  });
});

describe('reads', () => {
  it('GET …/parents lists possible parents; GET …/dependencies says whether any exist', async () => {
    const project = uniqueName('proj');
    await sql(`INSERT INTO projects (id, name) VALUES ($1, $1)`, [project]);
    await sql(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, 'development')`, [
      project,
    ]);
    const exists = () => t.request({ method: 'GET', url: `/api/admin/projects/${project}/dependencies` });
    expect((await exists()).json()).toBe(false);
    const [p, c, x] = [await flag(project), await flag(project), await flag(project)];
    await add(c, { feature: p }, project);
    expect((await exists()).json()).toBe(true);
    const parents = (child: string) =>
      t.request({ method: 'GET', url: `/api/admin/projects/${project}/features/${child}/parents` });
    expect((await parents(x)).json()).toEqual([p]);
    expect((await parents(c)).json()).toEqual([p, x].sort());
    expect((await parents(p)).json()).toEqual([]);
    expect((await parents(uniqueName())).statusCode).toBe(404);
    const anon = await t.request({
      method: 'GET',
      url: `/api/admin/projects/${project}/dependencies`,
      headers: NO_AUTH,
    });
    expect(anon.statusCode).toBe(401);
  });
});

describe('GET …/features/:parent/parent-variants', () => {
  it("lists the parent's strategy and environment variant names, each once, sorted", async () => {
    const parent = uniqueName('pv');
    await t.send('POST', '/api/admin/projects/default/features', { name: parent });
    await t.send(
      'POST',
      `/api/admin/projects/default/features/${parent}/environments/development/strategies`,
      {
        name: 'flexibleRollout',
        parameters: { rollout: '100', stickiness: 'default', groupId: parent },
        variants: [
          { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default' },
          { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
        ],
      },
    );
    await t.send('PUT', `/api/admin/projects/default/features/${parent}/environments/production/variants`, [
      { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 0, weightType: 'fix', stickiness: 'default' },
    ]);
    const res = await t.send('GET', `/api/admin/projects/default/features/${parent}/parent-variants`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(['blue', 'green', 'red']);
  });

  it('answers 200 [] for an unknown flag and for a flag of another project, as Unleash does', async () => {
    const parent = uniqueName('pv-other');
    await t.send('POST', '/api/admin/projects/default/features', { name: parent });
    await t.send('PUT', `/api/admin/projects/default/features/${parent}/environments/production/variants`, [
      { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' },
    ]);
    for (const url of [
      '/api/admin/projects/default/features/no-such-flag/parent-variants',
      `/api/admin/projects/other/features/${parent}/parent-variants`,
    ]) {
      const res = await t.send('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toEqual([]);
    }
  });
});
