import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const createFlagAs = (cookie: string) =>
  t.send('POST', '/api/admin/projects/default/features', { name: uniqueName('g') }, asUser(cookie));

describe('/api/admin/groups', () => {
  it('creates (201), lists, reads, updates (members replaced) and deletes a group, with events', async () => {
    const ada = await createUser(t);
    const bob = await createUser(t);
    const name = uniqueName('dx');
    const created = await t.send('POST', '/api/admin/groups', {
      name,
      description: 'DX squad',
      mappingsSSO: ['sso-dx'],
      users: [{ user: { id: ada.id } }],
    });
    expect(created.statusCode).toBe(201);
    const group = created.json();
    expect(created.headers.location).toBe(`groups/${group.id}`);
    expect(group).toMatchObject({
      name,
      description: 'DX squad',
      mappingsSSO: ['sso-dx'],
      rootRole: null,
      userCount: 1,
      projects: [],
    });
    expect(group.users[0].user).toMatchObject({ id: ada.id, username: ada.username });
    expect(group.createdBy).toBe('admin'); // the test admin token's name

    const list = (await t.send('GET', '/api/admin/groups')).json();
    expect(list.groups.map((g: { id: number }) => g.id)).toContain(group.id);

    const updated = await t.send('PUT', `/api/admin/groups/${group.id}`, {
      name,
      users: [{ user: { id: bob.id } }],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().users.map((u: { user: { id: number } }) => u.user.id)).toEqual([bob.id]);
    expect(updated.json().description).toBe(null);
    expect((await api(t).lastEvent('group-updated'))?.pre_data).toMatchObject({
      users: [ada.id],
      description: 'DX squad',
    });
    // The spec's member events, as Unleash records a change of members.
    const added = await api(t).lastEvent('group-user-added');
    expect(added?.data).toEqual({ groupId: group.id, userId: bob.id });
    const removed = await api(t).lastEvent('group-user-removed');
    expect(removed?.pre_data).toEqual({ groupId: group.id, userId: ada.id });
    // Members omitted: they stay, and no member event is recorded.
    const before = await api(t).count('events', "type LIKE 'group-user-%'");
    expect((await t.send('PUT', `/api/admin/groups/${group.id}`, { name })).statusCode).toBe(200);
    expect(await api(t).count('events', "type LIKE 'group-user-%'")).toBe(before);

    expect((await t.send('DELETE', `/api/admin/groups/${group.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/groups/${group.id}`)).statusCode).toBe(404);
    expect((await api(t).lastEvent('group-deleted'))?.pre_data).toMatchObject({
      id: group.id,
      users: [bob.id],
    });
    expect((await api(t).lastEvent('group-created'))?.data).toMatchObject({ id: group.id, users: [ada.id] });
  });

  it('409 for a taken name, 400 for unknown users or root role, 404 for unknown ids; nothing written', async () => {
    const name = uniqueName('taken');
    expect((await t.send('POST', '/api/admin/groups', { name })).statusCode).toBe(201);
    const before = await api(t).count('groups');
    expect((await t.send('POST', '/api/admin/groups', { name })).statusCode).toBe(409);
    expect(
      (
        await t.send('POST', '/api/admin/groups', {
          name: uniqueName('x'),
          users: [{ user: { id: 999999 } }],
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await t.send('POST', '/api/admin/groups', { name: uniqueName('x'), rootRole: 5 })).statusCode,
    ).toBe(400);
    expect((await t.send('POST', '/api/admin/groups', { name: '' })).statusCode).toBe(400);
    expect((await t.send('POST', '/api/admin/groups', {})).statusCode).toBe(400);
    expect(await api(t).count('groups')).toBe(before);
    expect((await t.send('PUT', '/api/admin/groups/999999', { name: 'x' })).statusCode).toBe(404);
    expect((await t.send('DELETE', '/api/admin/groups/999999')).statusCode).toBe(404);
  });

  it("a group's root role applies to its members, and leaving the group takes it away", async () => {
    const viewer = await createUser(t, 'Viewer');
    const cookie = await login(t, viewer.username);
    expect((await createFlagAs(cookie)).statusCode).toBe(403);
    const group = (
      await t.send('POST', '/api/admin/groups', {
        name: uniqueName('editors'),
        rootRole: 2,
        users: [{ user: { id: viewer.id } }],
      })
    ).json();
    expect((await createFlagAs(cookie)).statusCode).toBe(200);
    await t.send('PUT', `/api/admin/groups/${group.id}`, { name: group.name, rootRole: 2, users: [] });
    expect((await createFlagAs(cookie)).statusCode).toBe(403);
  });

  it('a Viewer cannot create or change groups (403) but can list them', async () => {
    const cookie = await login(t, (await createUser(t, 'Viewer')).username);
    expect(
      (await t.send('POST', '/api/admin/groups', { name: uniqueName('no') }, asUser(cookie))).statusCode,
    ).toBe(403);
    expect((await t.send('GET', '/api/admin/groups', undefined, asUser(cookie))).statusCode).toBe(200);
  });
});
