import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { unlistedPermissions } from './permissions.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Permission = { name: string; environment?: string };

async function createRole(body: {
  name?: string;
  type?: string;
  permissions?: Permission[];
  description?: string;
}) {
  const res = await t.send('POST', '/api/admin/roles', { name: uniqueName('role'), ...body });
  if (res.statusCode !== 201) throw new Error(`createRole ${res.statusCode}: ${res.body}`);
  return res.json() as { id: number; name: string; type: string; permissions: Permission[] };
}

/** Rows a rejected request must not have changed. */
const written = async () => {
  const a = api(t);
  return [await a.count('roles'), await a.count('role_permissions'), await a.count('events')];
};

describe('/api/admin/roles', () => {
  it('creates (201, Location), lists, reads, updates and deletes a custom role, each with its event', async () => {
    const name = uniqueName('Flag maintainer');
    const created = await t.send('POST', '/api/admin/roles', {
      name: `  ${name} `,
      description: 'Edits flags',
      type: 'root-custom',
      permissions: [
        { name: 'UPDATE_FEATURE' },
        { name: 'CREATE_FEATURE' },
        { name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'production' },
        { name: 'CREATE_FEATURE_STRATEGY' },
        { name: 'CREATE_FEATURE', environment: '' },
      ],
    });
    expect(created.statusCode).toBe(201);
    const role = created.json();
    expect(created.headers.location).toBe(`roles/${role.id}`);
    expect(role).toEqual({
      id: role.id,
      name,
      type: 'root-custom',
      description: 'Edits flags',
      permissions: [
        { name: 'CREATE_FEATURE' },
        { name: 'CREATE_FEATURE_STRATEGY', environment: '*' },
        { name: 'UPDATE_FEATURE' },
        { name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'production' },
      ],
    });
    expect((await api(t).lastEvent('role-created'))?.data).toEqual(role);

    const list = (await t.send('GET', '/api/admin/roles')).json();
    expect(list.version).toBe(1);
    expect(list.roles.map((r: { name: string }) => r.name).slice(0, 6)).toEqual([
      'Admin',
      'Editor',
      'Viewer',
      'Owner',
      'Member',
      'Reader',
    ]);
    expect(list.roles).toContainEqual({ id: role.id, name, type: 'root-custom', description: 'Edits flags' });
    expect((await t.send('GET', `/api/admin/roles/${role.id}`)).json()).toEqual(role);

    const updated = await t.send('PUT', `/api/admin/roles/${role.id}`, {
      name: `${name} v2`,
      permissions: [{ name: 'DELETE_FEATURE' }],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({
      ...role,
      name: `${name} v2`,
      permissions: [{ name: 'DELETE_FEATURE' }],
    });
    const updateEvent = await api(t).lastEvent('role-updated');
    expect(updateEvent?.pre_data).toEqual(role);
    expect(updateEvent?.data).toMatchObject({ name: `${name} v2`, description: 'Edits flags' });

    // The same again changes nothing and records nothing.
    const events = await api(t).count('events');
    const same = await t.send('PUT', `/api/admin/roles/${role.id}`, {
      name: `${name} v2`,
      type: 'root-custom',
    });
    expect(same.json()).toEqual(updated.json());
    expect(await api(t).count('events')).toBe(events);

    expect((await t.send('DELETE', `/api/admin/roles/${role.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/roles/${role.id}`)).statusCode).toBe(404);
    expect((await api(t).lastEvent('role-deleted'))?.pre_data).toEqual(updated.json());
    expect(await api(t).count('role_permissions', 'role_id = $1', [role.id])).toBe(0);
  });

  it('a role without type is a custom project role', async () => {
    const role = await createRole({
      permissions: [{ name: 'UPDATE_FEATURE_STRATEGY', environment: 'development' }],
    });
    expect(role.type).toBe('custom');
    expect(role.permissions).toEqual([{ name: 'UPDATE_FEATURE_STRATEGY', environment: 'development' }]);
  });

  it('built-in roles can be read but not changed or deleted (403)', async () => {
    const editor = (await t.send('GET', '/api/admin/roles/2')).json();
    expect(editor).toMatchObject({ id: 2, name: 'Editor', type: 'root' });
    expect(editor.permissions).toContainEqual({ name: 'CREATE_SEGMENT' });
    expect(editor.permissions).toContainEqual({ name: 'CREATE_FEATURE', project: 'default' });
    expect(editor.permissions).toContainEqual({
      name: 'UPDATE_FEATURE_ENVIRONMENT',
      environment: '*',
      project: 'default',
    });
    const before = await written();
    for (let id = 1; id <= 6; id++) {
      const change = await t.send('PUT', `/api/admin/roles/${id}`, {
        name: `Renamed ${id}`,
        permissions: [],
      });
      expect(change.statusCode, `PUT ${id}`).toBe(403);
      expect(change.json().name).toBe('InvalidOperationError');
      const remove = await t.send('DELETE', `/api/admin/roles/${id}`);
      expect(remove.statusCode, `DELETE ${id}`).toBe(403);
      expect(remove.json().name).toBe('InvalidOperationError');
    }
    expect(await written()).toEqual(before);
    expect((await t.send('GET', '/api/admin/roles/2')).json()).toEqual(editor);
  });

  it('400 for unknown, reserved or misplaced permissions, naming each; nothing written', async () => {
    const before = await written();
    const bad = await t.send('POST', '/api/admin/roles', {
      name: uniqueName('bad'),
      type: 'custom',
      permissions: [
        { name: 'CREATE_FEATURE' },
        { name: 'FLY_TO_THE_MOON' },
        { name: 'ADMIN' },
        { name: 'CREATE_SEGMENT' },
        { name: 'UPDATE_FEATURE', environment: 'production' },
        { name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'nowhere' },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().name).toBe('ValidationError');
    expect(bad.json().details.map((d: { path: string }) => d.path)).toEqual([
      '/body/permissions/1/name',
      '/body/permissions/2/name',
      '/body/permissions/3/name',
      '/body/permissions/4/environment',
      '/body/permissions/5/environment',
    ]);
    expect(bad.json().details[0].message).toContain('Known permissions: CREATE_PROJECT');
    for (const body of [
      { name: uniqueName('r'), permissions: [{ name: 'CLIENT' }], type: 'root-custom' },
      { name: uniqueName('r'), type: 'root' },
      { name: '   ' },
      { name: uniqueName('r'), permissions: [{ environment: 'production' }] },
      { name: uniqueName('r'), extra: 1 },
      { permissions: [] },
    ]) {
      expect((await t.send('POST', '/api/admin/roles', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await written()).toEqual(before);

    const role = await createRole({ type: 'root-custom', permissions: [{ name: 'CREATE_SEGMENT' }] });
    const snapshot = await written();
    for (const body of [
      { name: role.name, type: 'custom' },
      { name: role.name, permissions: [{ name: 'NOPE' }] },
    ]) {
      const res = await t.send('PUT', `/api/admin/roles/${role.id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await written()).toEqual(snapshot);
  });

  it('409 for a taken name in any letter case, built-in names included; nothing written', async () => {
    const role = await createRole({ type: 'root-custom' });
    const other = await createRole({});
    const before = await written();
    for (const name of [role.name.toUpperCase(), 'editor', ' Owner ']) {
      const res = await t.send('POST', '/api/admin/roles', { name });
      expect(res.statusCode, name).toBe(409);
      expect(res.json().name).toBe('NameExistsError');
    }
    expect((await t.send('PUT', `/api/admin/roles/${other.id}`, { name: role.name })).statusCode).toBe(409);
    expect(await written()).toEqual(before);
  });

  it('404 for unknown ids; 400 for ids that are not ids', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await t.send(method, '/api/admin/roles/999999', body)).statusCode, method).toBe(404);
      expect((await t.send(method, '/api/admin/roles/abc', body)).statusCode, method).toBe(400);
    }
  });

  it('reads are open to every signed-in caller; writes need ADMIN', async () => {
    const { username } = await createUser(t, 'Editor');
    const cookie = await login(t, username);
    expect((await t.send('GET', '/api/admin/roles', undefined, asUser(cookie))).statusCode).toBe(200);
    expect((await t.send('GET', '/api/admin/roles/1', undefined, asUser(cookie))).statusCode).toBe(200);
    const create = await t.send('POST', '/api/admin/roles', { name: uniqueName('r') }, asUser(cookie));
    expect(create.statusCode).toBe(403);
    expect(create.json().name).toBe('NoAccessError');
    expect(
      (await t.send('GET', '/api/admin/roles', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });

  it('lists every permission a custom role may hold, each accepted where its type says', async () => {
    const { username } = await createUser(t, 'Viewer');
    const answer = await t.send('GET', '/api/admin/permissions', undefined, asUser(await login(t, username)));
    expect(answer.statusCode).toBe(200);
    const { permissions } = answer.json() as {
      permissions: { name: string; displayName: string; type: string; category: string }[];
    };
    expect(new Set(permissions.map((p) => p.name)).size).toBe(permissions.length);
    expect(unlistedPermissions()).toEqual([]);
    expect(permissions.map((p) => p.name)).not.toContain('ADMIN');
    // What the list says is what role creation accepts: root ones only in custom root roles,
    // environment ones with an environment.
    for (const p of permissions) {
      expect(p.displayName.length, p.name).toBeGreaterThan(0);
      const permission = p.type === 'environment' ? { name: p.name, environment: '*' } : { name: p.name };
      const asRoot = await t.send('POST', '/api/admin/roles', {
        name: uniqueName('r'),
        type: 'root-custom',
        permissions: [permission],
      });
      expect(asRoot.statusCode, `${p.name} ${asRoot.body}`).toBe(201);
      const asProject = await t.send('POST', '/api/admin/roles', {
        name: uniqueName('r'),
        type: 'custom',
        permissions: [permission],
      });
      expect(asProject.statusCode, `${p.name} ${asProject.body}`).toBe(p.type === 'root' ? 400 : 201);
    }
    expect(
      (await t.send('GET', '/api/admin/permissions', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });
});

describe('custom roles at work', () => {
  const flagBody = () => ({ name: uniqueName('f') });

  it('a custom root role grants exactly its permissions, in every project, and a change applies at once', async () => {
    const project = uniqueName('p');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    const role = await createRole({ type: 'root-custom', permissions: [{ name: 'CREATE_FEATURE' }] });
    const { username } = await createUser(t, 'Viewer', { rootRole: role.name.toUpperCase() });
    const as = asUser(await login(t, username));

    const me = (await t.send('GET', '/api/admin/user', undefined, as)).json();
    expect(me.user.rootRole).toBe(role.id);
    expect(me.permissions).toEqual([{ permission: 'CREATE_FEATURE' }]);

    const inDefault = flagBody();
    expect((await t.send('POST', '/api/admin/projects/default/features', inDefault, as)).statusCode).toBe(
      200,
    );
    const elsewhere = flagBody();
    expect((await t.send('POST', `/api/admin/projects/${project}/features`, elsewhere, as)).statusCode).toBe(
      200,
    );
    // Nothing more: not updating flags, nor segments, projects or users.
    const update = await t.send(
      'PUT',
      `/api/admin/projects/default/features/${inDefault.name}`,
      { description: 'x' },
      as,
    );
    expect(update.statusCode).toBe(403);
    expect(update.json().message).toContain('"UPDATE_FEATURE"');
    expect(
      (await t.send('POST', '/api/admin/segments', { name: uniqueName('s'), constraints: [] }, as))
        .statusCode,
    ).toBe(403);
    const newProject = uniqueName('np');
    expect(
      (await t.send('POST', '/api/admin/projects', { id: newProject, name: newProject }, as)).statusCode,
    ).toBe(403);
    expect((await t.send('GET', '/api/admin/user-admin', undefined, as)).statusCode).toBe(403);

    // The role gains UPDATE_FEATURE: the same session may update flags now.
    const put = await t.send('PUT', `/api/admin/roles/${role.id}`, {
      name: role.name,
      permissions: [{ name: 'CREATE_FEATURE' }, { name: 'UPDATE_FEATURE' }],
    });
    expect(put.statusCode).toBe(200);
    expect(
      (
        await t.send(
          'PUT',
          `/api/admin/projects/${project}/features/${elsewhere.name}`,
          { description: 'now allowed' },
          as,
        )
      ).statusCode,
    ).toBe(200);
  });

  it('environment-scoped grants of a custom root role apply in their environment only', async () => {
    const role = await createRole({
      type: 'root-custom',
      permissions: [{ name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'development' }],
    });
    const flag = await api(t).createFlag('default', flagBody());
    const { username } = await createUser(t, role.id);
    const as = asUser(await login(t, username));
    const toggle = (env: string) =>
      t.send(
        'POST',
        `/api/admin/projects/default/features/${flag.name}/environments/${env}/on`,
        undefined,
        as,
      );
    expect((await toggle('development')).statusCode).toBe(200);
    const production = await toggle('production');
    expect(production.statusCode).toBe(403);
    expect(production.json().message).toContain('"production"');
  });

  it("a custom project role's grants apply in the project where it is given, nowhere else", async () => {
    const project = uniqueName('p');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    const role = await createRole({ type: 'custom', permissions: [{ name: 'CREATE_FEATURE' }] });
    const { id, username } = await createUser(t, 'Viewer');
    // Project access endpoints belong to another slice: the assignment is written as they would.
    await t.database.session(async (run) => {
      await run('INSERT INTO role_user (role_id, user_id, project) VALUES ($1, $2, $3)', [
        role.id,
        id,
        project,
      ]);
      await run(
        `INSERT INTO events (type, created_by, project) VALUES ('project-access-added', 'test', $1)`,
        [project],
      );
    });
    const as = asUser(await login(t, username));
    expect((await t.send('POST', `/api/admin/projects/${project}/features`, flagBody(), as)).statusCode).toBe(
      200,
    );
    expect((await t.send('POST', '/api/admin/projects/default/features', flagBody(), as)).statusCode).toBe(
      403,
    );

    // Held in a project: it cannot be deleted.
    const before = await written();
    const remove = await t.send('DELETE', `/api/admin/roles/${role.id}`);
    expect(remove.statusCode).toBe(400);
    expect(remove.json().message).toContain('1 user(s) in projects');
    expect(await written()).toEqual(before);
  });

  it('a role held as a root role cannot be deleted until nobody holds it', async () => {
    const role = await createRole({ type: 'root-custom', permissions: [{ name: 'CREATE_TAG_TYPE' }] });
    const { id } = await createUser(t, role.id);
    const before = await written();
    const remove = await t.send('DELETE', `/api/admin/roles/${role.id}`);
    expect(remove.statusCode).toBe(400);
    expect(remove.json().name).toBe('ValidationError');
    expect(remove.json().message).toContain('1 user(s) or service account(s)');
    expect(await written()).toEqual(before);
    expect((await t.send('GET', `/api/admin/user-admin/${id}`)).json().rootRole).toBe(role.id);

    expect((await t.send('PUT', `/api/admin/user-admin/${id}`, { rootRole: 'Viewer' })).statusCode).toBe(200);
    expect((await t.send('DELETE', `/api/admin/roles/${role.id}`)).statusCode).toBe(200);
  });

  it('user administration offers custom root roles, never project roles, as root roles', async () => {
    const root = await createRole({ type: 'root-custom' });
    const project = await createRole({ type: 'custom' });
    const list = (await t.send('GET', '/api/admin/user-admin')).json();
    const names = list.rootRoles.map((r: { name: string }) => r.name);
    expect(names.slice(0, 3)).toEqual(['Admin', 'Editor', 'Viewer']);
    expect(names).toContain(root.name);
    expect(names).not.toContain(project.name);
    expect(list.rootRoles).toContainEqual({
      id: root.id,
      name: root.name,
      type: 'root-custom',
      description: '',
    });

    const byId = await t.send('POST', '/api/admin/user-admin', {
      username: uniqueName('u'),
      rootRole: root.id,
    });
    expect(byId.statusCode).toBe(201);
    expect(byId.json().rootRole).toBe(root.id);
    const users = await api(t).count('users');
    for (const rootRole of [project.id, project.name, 'Owner', 4]) {
      const res = await t.send('POST', '/api/admin/user-admin', { username: uniqueName('u'), rootRole });
      expect(res.statusCode, String(rootRole)).toBe(400);
    }
    expect(await api(t).count('users')).toBe(users);
    const moved = await t.send('PUT', `/api/admin/user-admin/${byId.json().id}`, { rootRole: root.name });
    expect(moved.statusCode).toBe(200);
    expect(
      (await t.send('PUT', `/api/admin/user-admin/${byId.json().id}`, { rootRole: project.id })).statusCode,
    ).toBe(400);
  });
});
