import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const grant = async (project: string, roleId: number, userId: number) => {
  const res = await t.send('POST', `/api/admin/projects/${project}/access`, {
    roles: [roleId],
    users: [{ id: userId }],
  });
  expect(res.statusCode).toBe(200);
};

describe('personal dashboard', () => {
  it("shows the caller's flags, projects with owners, admins; and per project counts, events, owners, roles", async () => {
    const project = uniqueName('dash');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: 'Dashboard' })).statusCode).toBe(
      201,
    );
    const me = await createUser(t, 'Viewer', { name: 'Me Myself' });
    const owner = await createUser(t, 'Viewer', {
      name: 'Olga Owner',
      email: `${uniqueName('o')}@example.com`,
    });
    const admin = await createUser(t, 'Admin', { name: 'Ada Admin' });
    await grant(project, 5, me.id);
    await grant(project, 4, owner.id);
    const headers = asUser(await login(t, me.username));
    const mine = `a-${uniqueName()}`;
    const favorite = `b-${uniqueName()}`;
    const other = `c-${uniqueName()}`;
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/features`, { name: mine }, headers)).statusCode,
    ).toBe(200);
    await t.send('POST', '/api/admin/projects/default/features', { name: favorite });
    await t.send('POST', '/api/admin/projects/default/features', { name: other });
    expect(
      (await t.send('POST', `/api/admin/projects/default/features/${favorite}/favorites`, undefined, headers))
        .statusCode,
    ).toBe(200);
    await t.send('POST', `/api/admin/projects/${project}/features`, { name: `d-${uniqueName()}` });
    await t.send('PUT', `/api/admin/projects/${project}/features/${mine}`, { stale: true });

    const res = await t.send('GET', '/api/admin/personal-dashboard', undefined, headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.flags).toEqual([
      { name: mine, project, type: 'release' },
      { name: favorite, project: 'default', type: 'release' },
    ]);
    // `default` too: a root role counts as a role there, as Unleash lists it for every such user.
    expect(body.projects).toEqual([
      { id: project, name: 'Dashboard', health: 50, technicalDebt: 50, memberCount: 2, featureCount: 2 },
      expect.objectContaining({ id: 'default', name: 'Default' }),
    ]);
    expect(body.projectOwners).toEqual([
      {
        ownerType: 'user',
        name: 'Olga Owner',
        email: expect.stringContaining('@example.com'),
        imageUrl: expect.stringContaining('gravatar'),
      },
    ]);
    expect(body.admins).toContainEqual(
      expect.objectContaining({ id: admin.id, name: 'Ada Admin', username: admin.username }),
    );

    const details = await t.send('GET', `/api/admin/personal-dashboard/${project}`, undefined, headers);
    expect(details.statusCode).toBe(200);
    const d = details.json();
    expect(d.insights).toEqual({
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: 2,
      activeFlags: 1,
      staleFlags: 1,
      potentiallyStaleFlags: 0,
      health: 50,
      technicalDebt: 50,
    });
    expect(d.onboardingStatus).toEqual({ status: 'first-flag-created', feature: mine });
    expect(d.roles).toEqual([{ id: 5, name: 'Member', type: 'project' }]);
    expect(d.owners).toEqual([expect.objectContaining({ ownerType: 'user', name: 'Olga Owner' })]);
    expect(d.latestEvents.length).toBeGreaterThanOrEqual(4);
    const ids = d.latestEvents.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const created = d.latestEvents.find((e: { createdBy: string }) => e.createdBy === me.username);
    expect(created).toEqual({
      id: expect.any(Number),
      summary: null,
      createdBy: me.username,
      createdByImageUrl: expect.stringContaining('gravatar'),
      createdAt: expect.any(String),
    });
  });

  it('a project without owners shows the system; an API token has no flags or projects; 404 and 401', async () => {
    const project = uniqueName('dash');
    await t.send('POST', '/api/admin/projects', { id: project, name: 'Nobody' });
    const details = (await t.send('GET', `/api/admin/personal-dashboard/${project}`)).json();
    expect(details).toMatchObject({
      owners: [{ ownerType: 'system' }],
      roles: [],
      onboardingStatus: { status: 'onboarding-started' },
    });
    const dashboard = (await t.send('GET', '/api/admin/personal-dashboard')).json();
    expect(dashboard).toMatchObject({ flags: [], projects: [], projectOwners: [] });
    const unknown = await t.send('GET', `/api/admin/personal-dashboard/${uniqueName('p')}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().name).toBe('NotFoundError');
    expect(
      (await t.send('GET', '/api/admin/personal-dashboard', undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
  });
});
