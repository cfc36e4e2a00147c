import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const sql = (text: string, params: unknown[] = []) => t.database.session((run) => run(text, params));
const newProject = async () => {
  const id = uniqueName('ins');
  expect((await t.send('POST', '/api/admin/projects', { id, name: id })).statusCode).toBe(201);
  return id;
};
const enable = async (project: string, flag: string, env = 'production') => {
  const res = await t.send('POST', `/api/admin/projects/${project}/features/${flag}/environments/${env}/on`);
  expect(res.statusCode).toBe(200);
};

describe('project insights and DORA lead time', () => {
  it('lead time: whole days from creation to the first production enabling; the average over release flags', async () => {
    const project = await newProject();
    const [release, killSwitch, never, devOnly] = ['a-rel', 'b-kill', 'c-never', 'd-dev'].map(
      (n) => `${n}-${project}`,
    ) as [string, string, string, string];
    await a.createFlag(project, { name: release });
    await a.createFlag(project, { name: killSwitch, type: 'kill-switch' });
    await a.createFlag(project, { name: never });
    await a.createFlag(project, { name: devOnly });
    await enable(project, release);
    await enable(project, killSwitch);
    await enable(project, devOnly, 'development');
    await sql(`UPDATE features SET created_at = now() - interval '3 days 12 hours' WHERE name = $1`, [
      release,
    ]);
    await sql(`UPDATE features SET created_at = now() - interval '10 days 1 hour' WHERE name = $1`, [
      killSwitch,
    ]);
    // Enabled again later: the first enabling counts.
    await t.send('POST', `/api/admin/projects/${project}/features/${release}/environments/production/off`);
    await enable(project, release);

    const dora = await t.send('GET', `/api/admin/projects/${project}/dora`);
    expect(dora.statusCode).toBe(200);
    expect(dora.json()).toEqual({
      projectAverage: 3,
      features: [
        { name: release, timeToProduction: 3 },
        { name: killSwitch, timeToProduction: 10 },
      ],
    });
  });

  it('insights: health and technical debt with counts, lead time, flags per type, members', async () => {
    const project = await newProject();
    const flags = [`a-${project}`, `b-${project}`, `c-${project}`, `d-${project}`];
    for (const name of flags.slice(0, 3)) await a.createFlag(project, { name });
    await a.createFlag(project, { name: flags[3], type: 'operational' });
    await sql(`UPDATE features SET potentially_stale = true WHERE name = $1`, [flags[1]]);
    expect((await a.updateFlag(project, flags[0] as string, { stale: true })).statusCode).toBe(200);
    const member = await createUser(t, 'Viewer');
    await t.send('POST', `/api/admin/projects/${project}/access`, { roles: [5], users: [{ id: member.id }] });

    const res = await t.send(
      'GET',
      `/api/admin/projects/${project}/insights`,
      undefined,
      asUser(await login(t, member.username)),
    );
    expect(res.statusCode).toBe(200);
    const counts = { activeCount: 3, potentiallyStaleCount: 1, staleCount: 1 };
    expect(res.json()).toEqual({
      stats: expect.objectContaining({
        createdCurrentWindow: 4,
        archivedCurrentWindow: 0,
        projectMembersAddedCurrentWindow: 1,
      }),
      health: { rating: 50, ...counts },
      technicalDebt: { rating: 50, ...counts },
      leadTime: { projectAverage: 0, features: [] },
      featureTypeCounts: [
        { type: 'operational', count: 1 },
        { type: 'release', count: 3 },
      ],
      members: { currentMembers: 1, change: 1 },
    });
  });

  it('404 for an unknown project, 401 without credential', async () => {
    for (const path of ['insights', 'dora']) {
      const res = await t.send('GET', `/api/admin/projects/${uniqueName('p')}/${path}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().name).toBe('NotFoundError');
      expect(
        (await t.send('GET', `/api/admin/projects/default/${path}`, undefined, { authorization: undefined }))
          .statusCode,
      ).toBe(401);
    }
  });
});
