import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
const project = uniqueName('acc');
beforeAll(async () => {
  t = await startTestApp();
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201);
});
afterAll(() => t.close());

const access = async (p = project) => (await t.send('GET', `/api/admin/projects/${p}/access`)).json();
const createFlagAs = (cookie: string, p = project) =>
  t.send('POST', `/api/admin/projects/${p}/features`, { name: uniqueName('f') }, asUser(cookie));

describe('project access', () => {
  it('lists the project roles; grants roles to users and groups, who then act in the project only', async () => {
    const empty = await access();
    expect(empty.roles.map((r: { name: string }) => r.name)).toEqual(['Owner', 'Member', 'Reader']);
    expect(empty.users).toEqual([]);

    const member = await createUser(t);
    const inGroup = await createUser(t);
    const group = (
      await t.send('POST', '/api/admin/groups', {
        name: uniqueName('team'),
        users: [{ user: { id: inGroup.id } }],
      })
    ).json();
    const memberCookie = await login(t, member.username);
    const groupCookie = await login(t, inGroup.username);
    expect((await createFlagAs(memberCookie)).statusCode).toBe(403);

    const grant = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [5],
      users: [{ id: member.id }],
      groups: [{ id: group.id }],
    });
    expect(grant.statusCode).toBe(200);
    const after = await access();
    expect(after.users).toEqual([
      expect.objectContaining({ id: member.id, roleId: 5, roles: [5], isAPI: false }),
    ]);
    expect(after.groups).toEqual([
      expect.objectContaining({ id: group.id, roleId: 5, roles: [5], userCount: 1 }),
    ]);
    expect((await api(t).lastEvent('project-access-added'))?.data).toEqual({
      roles: [{ roleId: 5, userIds: [member.id], groupIds: [group.id] }],
    });
    expect((await createFlagAs(memberCookie)).statusCode).toBe(200);
    expect((await createFlagAs(groupCookie)).statusCode).toBe(200);
    expect((await createFlagAs(memberCookie, 'default')).statusCode).toBe(403);
    expect((await t.send('GET', `/api/admin/groups/${group.id}`)).json().projects).toEqual([project]);

    // Member → Reader: reads only.
    expect(
      (await t.send('PUT', `/api/admin/projects/${project}/users/${member.id}/roles`, { roles: [6] }))
        .statusCode,
    ).toBe(200);
    expect((await createFlagAs(memberCookie)).statusCode).toBe(403);
    expect((await api(t).lastEvent('project-access-user-roles-updated'))?.pre_data).toEqual({
      roles: [5],
      userId: member.id,
    });

    // Removing the group takes its members' rights.
    expect(
      (await t.send('DELETE', `/api/admin/projects/${project}/groups/${group.id}/roles`)).statusCode,
    ).toBe(200);
    expect((await createFlagAs(groupCookie)).statusCode).toBe(403);
    expect((await access()).groups).toEqual([]);
    expect((await api(t).lastEvent('project-access-user-roles-deleted'))?.pre_data).toEqual({
      roles: [5],
      groupId: group.id,
    });
  });

  it("takes user and group ids as plain integers, as Unleash's web UI sends them", async () => {
    const p = uniqueName('acc-ids');
    expect((await t.send('POST', '/api/admin/projects', { id: p, name: p })).statusCode).toBe(201);
    const user = await createUser(t);
    const group = (await t.send('POST', '/api/admin/groups', { name: uniqueName('ids') })).json();
    const grant = await t.send('POST', `/api/admin/projects/${p}/access`, {
      roles: [5],
      users: [user.id],
      groups: [group.id],
    });
    expect(grant.statusCode).toBe(200);
    const after = await access(p);
    expect(after.users).toEqual([expect.objectContaining({ id: user.id, roles: [5] })]);
    expect(after.groups).toEqual([expect.objectContaining({ id: group.id, roles: [5] })]);
    const bad = await t.send('POST', `/api/admin/projects/${p}/access`, { roles: [5], users: ['7'] });
    expect(bad.statusCode).toBe(400);
  });

  it('an Owner manages access to their project only; a Member cannot', async () => {
    const owner = await createUser(t);
    const member = await createUser(t);
    const newcomer = await createUser(t);
    await t.send('POST', `/api/admin/projects/${project}/access`, { roles: [4], users: [{ id: owner.id }] });
    await t.send('POST', `/api/admin/projects/${project}/access`, { roles: [5], users: [{ id: member.id }] });
    const ownerCookie = await login(t, owner.username);
    const memberCookie = await login(t, member.username);
    const give = (cookie: string, p = project) =>
      t.send(
        'POST',
        `/api/admin/projects/${p}/access`,
        { roles: [5], users: [{ id: newcomer.id }] },
        asUser(cookie),
      );
    expect((await give(memberCookie)).statusCode).toBe(403);
    expect((await give(ownerCookie, 'default')).statusCode).toBe(403);
    expect((await give(ownerCookie)).statusCode).toBe(200);
    expect((await access()).users.map((u: { id: number }) => u.id)).toContain(newcomer.id);
  });

  it('404 for an unknown project; 400 for root roles, unknown users or groups; nothing written', async () => {
    const user = await createUser(t);
    expect((await t.send('GET', '/api/admin/projects/no-such-project/access')).statusCode).toBe(404);
    expect(
      (
        await t.send('POST', '/api/admin/projects/no-such-project/access', {
          roles: [5],
          users: [{ id: user.id }],
        })
      ).statusCode,
    ).toBe(404);
    const before = await api(t).count('role_user');
    for (const body of [
      { roles: [1], users: [{ id: user.id }] },
      { roles: [5], users: [{ id: 999999 }] },
      { roles: [5], groups: [{ id: 999999 }] },
      { roles: [999], users: [{ id: user.id }] },
      { users: [{ id: user.id }] },
    ]) {
      expect(
        (await t.send('POST', `/api/admin/projects/${project}/access`, body)).statusCode,
        JSON.stringify(body),
      ).toBe(400);
    }
    expect(
      (await t.send('PUT', `/api/admin/projects/${project}/users/999999/roles`, { roles: [5] })).statusCode,
    ).toBe(400);
    expect(await api(t).count('role_user')).toBe(before);
  });
});
