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

const validate = (body: unknown) => t.send('POST', '/api/admin/features/validate', body);

describe('POST /api/admin/features/validate', () => {
  it('accepts a free, URL-friendly name and refuses taken, archived and unfriendly ones', async () => {
    const free = uniqueName('free');
    const ok = await validate({ name: free });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('');

    const taken = uniqueName('taken');
    await a.createFlag('default', { name: taken });
    const clash = await validate({ name: taken });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().name).toBe('NameExistsError');
    await a.updateFlag('default', taken, { archived: true });
    expect((await validate({ name: taken })).json().message).toContain('archived');

    for (const name of ['has space', 'slash/name', '', '..', 'x'.repeat(101)]) {
      const res = await validate({ name });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect((await validate({})).statusCode).toBe(400);
  });

  it("applies the project's naming pattern when a project is given", async () => {
    const project = uniqueName('named');
    await t.send('POST', '/api/admin/projects', {
      id: project,
      name: project,
      featureNaming: { pattern: 'team-[a-z]+' },
    });
    expect((await validate({ name: 'team-search', projectId: project })).statusCode).toBe(200);
    const wrong = await validate({ name: 'search', projectId: project });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details[0]).toMatchObject({ path: '/body/name' });
    expect((await validate({ name: 'search', projectId: null })).statusCode).toBe(200);
    expect((await validate({ name: 'search', projectId: 'no-such-project' })).statusCode).toBe(404);
  });
});

describe('GET …/features/:featureName/environments/:environment', () => {
  it('answers the flag in one environment as the flag shows it, 404 for an unknown one', async () => {
    const name = uniqueName('env');
    await a.createFlag('default', { name });
    await t.send('POST', `/api/admin/projects/default/features/${name}/environments/production/on`);
    const res = await t.send('GET', `/api/admin/projects/default/features/${name}/environments/production`);
    expect(res.statusCode).toBe(200);
    const flag = (await a.getFlag('default', name)).json();
    expect(res.json()).toEqual(flag.environments.find((e: { name: string }) => e.name === 'production'));
    expect(res.json()).toMatchObject({
      name: 'production',
      enabled: true,
      featureName: name,
      hasStrategies: true,
    });
    expect(
      (await t.send('GET', `/api/admin/projects/default/features/${name}/environments/nope`)).statusCode,
    ).toBe(404);
    expect(
      (await t.send('GET', `/api/admin/projects/other/features/${name}/environments/production`)).statusCode,
    ).toBe(404);
  });
});

describe('GET /api/admin/lifecycle/count', () => {
  it('counts flags per current stage, moving as flags move', async () => {
    const count = async () => (await t.send('GET', '/api/admin/lifecycle/count')).json();
    const before = await count();
    expect(Object.keys(before).sort()).toEqual(['archived', 'completed', 'initial', 'live', 'preLive']);
    const name = uniqueName('life');
    await a.createFlag('default', { name });
    expect((await count()).initial).toBe(before.initial + 1);
    await a.updateFlag('default', name, { archived: true });
    const after = await count();
    expect([after.initial, after.archived]).toEqual([before.initial, before.archived + 1]);
  });
});
