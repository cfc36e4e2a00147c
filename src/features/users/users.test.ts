import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, GOOD_PASSWORD, login } from '../../../test/people.js';

let t: TestApp;
let clock = Date.now();
beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(clock) });
});
afterAll(() => t.close());

const RULES = {
  short: 'The password must be at least 10 characters long.',
  long: 'The password must be fewer than 128 characters.',
  repeat: 'The password may not contain sequences of three or more repeated characters.',
  lower: 'The password must contain at least one lowercase letter.',
  upper: 'The password must contain at least one uppercase letter.',
  digit: 'The password must contain at least one number.',
  special: 'The password must contain at least one special character.',
};

describe('POST /auth/reset/validate-password', () => {
  it.each([
    ['abc', [RULES.short, RULES.upper, RULES.digit, RULES.special]],
    ['abcdefghij', [RULES.upper, RULES.digit, RULES.special]],
    ['Abcdefgh1!', []],
    ['Abcdefff1!', [RULES.repeat]],
    ['ABCDEFGH1!', [RULES.lower]],
    ['Abcdefghi!', [RULES.digit]],
    ['Abcdefghi1', [RULES.special]],
    [`Ab1!${'xy'.repeat(70)}`, [RULES.long]],
    ['Ünïcödé-Pässwörd-9', []],
  ])('%s → %j', async (password, broken) => {
    const res = await t.send(
      'POST',
      '/auth/reset/validate-password',
      { password },
      { authorization: undefined },
    );
    if (broken.length === 0) {
      expect(res.statusCode).toBe(200);
      // As the spec and Unleash: a 200 without a body (not the JSON text `null`).
      expect(res.body).toBe('');
      return;
    }
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.name).toBe('ValidationError');
    expect(body.message).toBe(broken[0]);
    expect(body.details.map((d: { message: string }) => d.message)).toEqual(broken);
  });

  it('400 for an empty or missing password, 415 for a non-JSON body', async () => {
    const noAuth = { authorization: undefined };
    expect((await t.send('POST', '/auth/reset/validate-password', { password: '' }, noAuth)).statusCode).toBe(
      400,
    );
    expect((await t.send('POST', '/auth/reset/validate-password', {}, noAuth)).statusCode).toBe(400);
    const text = await t.request({
      method: 'POST',
      url: '/auth/reset/validate-password',
      payload: 'password=x',
      headers: { authorization: undefined, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text.statusCode).toBe(415);
  });
});

describe('/api/admin/user-admin', () => {
  it('creates (201, Location), lists, reads, updates and deletes a user, with events without secrets', async () => {
    const username = uniqueName('ada');
    const created = await t.send('POST', '/api/admin/user-admin', {
      username,
      email: `${username}@example.com`,
      name: 'Ada',
      password: GOOD_PASSWORD,
      rootRole: 'Editor',
    });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(created.headers.location).toBe(String(user.id));
    expect(user).toMatchObject({
      username,
      name: 'Ada',
      rootRole: 2,
      accountType: 'User',
      loginAttempts: 0,
      seenAt: null,
    });
    expect(JSON.stringify(user)).not.toMatch(/password|scrypt/i);

    const list = (await t.send('GET', '/api/admin/user-admin')).json();
    expect(list.users.map((u: { id: number }) => u.id)).toContain(user.id);
    expect(list.rootRoles.map((r: { name: string }) => r.name)).toEqual(['Admin', 'Editor', 'Viewer']);
    expect((await t.send('GET', `/api/admin/user-admin/${user.id}`)).json().email).toBe(
      `${username}@example.com`,
    );

    const updated = await t.send('PUT', `/api/admin/user-admin/${user.id}`, { name: 'Ada L.', rootRole: 3 });
    expect(updated.json()).toMatchObject({ name: 'Ada L.', rootRole: 3, email: `${username}@example.com` });

    expect((await t.send('DELETE', `/api/admin/user-admin/${user.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/user-admin/${user.id}`)).statusCode).toBe(404);

    const a = api(t);
    const createdEvent = await a.lastEvent('user-created');
    expect(createdEvent?.data).toMatchObject({ id: user.id, username, rootRole: 2 });
    expect((await a.lastEvent('user-updated'))?.pre_data).toMatchObject({ name: 'Ada', rootRole: 2 });
    expect((await a.lastEvent('user-deleted'))?.pre_data).toMatchObject({ id: user.id });
    const all = await t.database.session((run) =>
      run("SELECT data, pre_data FROM events WHERE type LIKE 'user-%'"),
    );
    expect(JSON.stringify(all)).not.toMatch(/scrypt|Correct-Horse/);
  });

  it('409 for a taken username or email in any letter case; nothing written', async () => {
    const { username } = await createUser(t, 'Viewer', { email: `${uniqueName('e')}@Example.com` });
    const before = await api(t).count('users');
    const again = await t.send('POST', '/api/admin/user-admin', {
      username: username.toUpperCase(),
      rootRole: 'Viewer',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().name).toBe('NameExistsError');
    expect(await api(t).count('users')).toBe(before);
  });

  it('400 for no username or email, an unknown role, a weak password or a bad email', async () => {
    const before = await api(t).count('users');
    for (const body of [
      { rootRole: 'Viewer' },
      { username: uniqueName('u'), rootRole: 'Boss' },
      { username: uniqueName('u'), rootRole: 99 },
      { username: uniqueName('u'), rootRole: 'Viewer', password: 'weak' },
      { email: 'not-an-email', rootRole: 'Viewer' },
      { username: uniqueName('u'), rootRole: 'Viewer', extra: true },
    ]) {
      const res = await t.send('POST', '/api/admin/user-admin', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await api(t).count('users')).toBe(before);
  });

  it('404 for unknown ids on every user route', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/admin/user-admin/999999', undefined],
      ['PUT', '/api/admin/user-admin/999999', { name: 'x' }],
      ['DELETE', '/api/admin/user-admin/999999', undefined],
      ['POST', '/api/admin/user-admin/999999/change-password', { password: GOOD_PASSWORD }],
    ] as const) {
      expect((await t.send(method, url, body)).statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it('keeps the last Admin: it cannot be demoted or deleted', async () => {
    // Every Admin but one is demoted first (other tests may have made some).
    const admins = (await t.send('GET', '/api/admin/user-admin'))
      .json()
      .users.filter((u: { rootRole: number }) => u.rootRole === 1);
    let last = admins[0]?.id as number | undefined;
    if (last === undefined) last = (await createUser(t, 'Admin')).id;
    for (const other of admins.slice(1))
      await t.send('PUT', `/api/admin/user-admin/${other.id}`, { rootRole: 'Viewer' });
    const demote = await t.send('PUT', `/api/admin/user-admin/${last}`, { rootRole: 'Editor' });
    expect(demote.statusCode).toBe(403);
    expect((await t.send('DELETE', `/api/admin/user-admin/${last}`)).statusCode).toBe(403);
    expect((await t.send('GET', `/api/admin/user-admin/${last}`)).json().rootRole).toBe(1);
  });
});

describe('password login and sessions', () => {
  it("a 401 for want of a session says how to sign in, as Unleash's does (its web UI draws the form from it)", async () => {
    const hints = { type: 'password', path: '/auth/simple/login', defaultHidden: false };
    const none = await t.send('GET', '/api/admin/user', undefined, { authorization: undefined });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ name: 'AuthenticationRequired', ...hints });
    expect(typeof none.json().id).toBe('string');
    const ended = await t.send('GET', '/api/admin/projects', undefined, asUser('flagship-session=ended'));
    expect(ended.statusCode).toBe(401);
    expect(ended.json()).toMatchObject({ name: 'AuthenticationRequired', ...hints });
  });

  it('signs in by username or email in any case, with an HttpOnly SameSite=Lax cookie; POST /logout ends it', async () => {
    const email = `${uniqueName('login')}@example.com`;
    const { id, username } = await createUser(t, 'Editor', { email });
    const res = await t.send(
      'POST',
      '/auth/simple/login',
      { username: email.toUpperCase(), password: GOOD_PASSWORD },
      { authorization: undefined },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, username, loginAttempts: 0 });
    expect(res.json().seenAt).not.toBe(null);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i);

    const cookie = await login(t, username);
    const me = await t.send('GET', '/api/admin/user', undefined, asUser(cookie));
    expect(me.statusCode).toBe(200);
    expect(me.headers['cache-control']).toBe('no-store');
    expect(me.json().user).toMatchObject({ id, username, rootRole: 2 });
    expect(me.json().permissions).toContainEqual({ permission: 'CREATE_FEATURE', project: 'default' });

    // GET only goes to the start page: a link or an image on another site cannot sign you out.
    const visit = await t.send('GET', '/logout', undefined, asUser(cookie));
    expect(visit.statusCode).toBe(302);
    expect(visit.headers.location).toBe('/');
    expect(String(visit.headers['set-cookie'] ?? '')).not.toContain('flagship-session');
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(cookie))).statusCode).toBe(200);
    const out = await t.send('POST', '/logout', undefined, asUser(cookie));
    expect(out.statusCode).toBe(302);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(cookie))).statusCode).toBe(401);
  });

  it('401 for a wrong password or unknown user; failed attempts are counted and reset by a login', async () => {
    const { id, username } = await createUser(t);
    const noAuth = { authorization: undefined };
    for (let i = 0; i < 2; i++) {
      const res = await t.send(
        'POST',
        '/auth/simple/login',
        { username, password: 'Wrong-Password-1' },
        noAuth,
      );
      expect(res.statusCode).toBe(401);
      expect(res.json().name).toBe('AuthenticationRequired');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await t.send('GET', `/api/admin/user-admin/${id}`)).json().loginAttempts).toBe(2);
    const unknown = await t.send(
      'POST',
      '/auth/simple/login',
      { username: 'nobody-here', password: GOOD_PASSWORD },
      noAuth,
    );
    expect(unknown.statusCode).toBe(401);
    await login(t, username);
    expect((await t.send('GET', `/api/admin/user-admin/${id}`)).json().loginAttempts).toBe(0);
  });

  it('a session expires after SESSION_TTL_HOURS unless used in its second half (sliding)', async () => {
    const { username } = await createUser(t);
    const cookie = await login(t, username);
    const hour = 3_600_000;
    const me = () => t.send('GET', '/api/admin/user', undefined, asUser(cookie));
    clock += 30 * hour; // past half of 48 h: this use renews it for 48 h from now
    expect((await me()).statusCode).toBe(200);
    clock += 40 * hour; // 70 h after login, 40 h after the renewal
    expect((await me()).statusCode).toBe(200);
    clock += 49 * hour;
    const expired = await me();
    expect(expired.statusCode).toBe(401);
    expect(expired.json().name).toBe('AuthenticationRequired');
  });

  it("changing a user's password ends their sessions; changing your own keeps the current one", async () => {
    const { id, username } = await createUser(t);
    const first = await login(t, username);
    const second = await login(t, username);
    const own = await t.send(
      'POST',
      '/api/admin/user/change-password',
      { password: 'Another-Good-Pass-8' },
      asUser(first),
    );
    expect(own.statusCode).toBe(200);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(first))).statusCode).toBe(200);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(second))).statusCode).toBe(401);
    expect(
      (
        await t.send(
          'POST',
          '/auth/simple/login',
          { username, password: GOOD_PASSWORD },
          { authorization: undefined },
        )
      ).statusCode,
    ).toBe(401);

    const weak = await t.send('POST', `/api/admin/user-admin/${id}/change-password`, { password: 'short' });
    expect(weak.statusCode).toBe(400);
    const reset = await t.send('POST', `/api/admin/user-admin/${id}/change-password`, {
      password: GOOD_PASSWORD,
    });
    expect(reset.statusCode).toBe(200);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(first))).statusCode).toBe(401);
    await login(t, username);
    expect((await api(t).lastEvent('user-password-changed'))?.data).toEqual({ id, username, email: null });
  });

  it('deleting a user ends their sessions and keeps the events they made readable', async () => {
    const { id, username } = await createUser(t, 'Editor');
    const cookie = await login(t, username);
    const name = uniqueName('by-user');
    const created = await t.send('POST', '/api/admin/projects/default/features', { name }, asUser(cookie));
    expect(created.statusCode).toBe(200);
    expect((await t.send('DELETE', `/api/admin/user-admin/${id}`)).statusCode).toBe(200);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(cookie))).statusCode).toBe(401);
    const events = await api(t).flagEvents(name);
    expect(events.events[0]).toMatchObject({
      type: 'feature-created',
      createdBy: username,
      createdByUserId: id,
    });
  });

  it('an Editor who creates a project owns it: flags there, but not in projects of others', async () => {
    const { username } = await createUser(t, 'Editor');
    const cookie = await login(t, username);
    const project = uniqueName('owned');
    expect(
      (await t.send('POST', '/api/admin/projects', { id: project, name: project }, asUser(cookie)))
        .statusCode,
    ).toBe(201);
    const inOwn = await t.send(
      'POST',
      `/api/admin/projects/${project}/features`,
      { name: uniqueName('f') },
      asUser(cookie),
    );
    expect(inOwn.statusCode).toBe(200);
    expect(
      (await t.send('PUT', `/api/admin/projects/${project}/settings`, {}, asUser(cookie))).statusCode,
    ).not.toBe(403);
    const foreign = uniqueName('foreign');
    await t.send('POST', '/api/admin/projects', { id: foreign, name: foreign });
    const inForeign = await t.send(
      'POST',
      `/api/admin/projects/${foreign}/features`,
      { name: uniqueName('f') },
      asUser(cookie),
    );
    expect(inForeign.statusCode).toBe(403);
    expect(inForeign.json().message).toContain('"CREATE_FEATURE"');
    const me = (await t.send('GET', '/api/admin/user', undefined, asUser(cookie))).json();
    expect(me.permissions).toContainEqual({ permission: 'UPDATE_PROJECT', project });
  });

  it("an API token's /api/admin/user is a synthetic user without the secret", async () => {
    const me = (await t.send('GET', '/api/admin/user')).json();
    expect(me.user.isAPI).toBe(true);
    expect(me.permissions).toEqual([{ permission: 'ADMIN' }]);
    expect(JSON.stringify(me)).not.toContain('test-admin-token');
  });
});

describe('personal access tokens', () => {
  it('created with an expiry, shown once, act as the user, listed without secret, deleted at once', async () => {
    const { id, username } = await createUser(t, 'Viewer');
    const cookie = await login(t, username);
    const expiresAt = new Date(clock + 86_400_000).toISOString();
    const created = await t.send(
      'POST',
      '/api/admin/user/tokens',
      { description: 'ci', expiresAt },
      asUser(cookie),
    );
    expect(created.statusCode).toBe(201);
    const pat = created.json();
    expect(pat.secret).toMatch(/^user:[0-9a-f]{56}$/);
    expect(pat).toMatchObject({ description: 'ci', userId: id, expiresAt });

    const me = await t.send('GET', '/api/admin/user', undefined, { authorization: pat.secret });
    expect(me.json().user.id).toBe(id);
    // A Viewer's token cannot do what a Viewer cannot.
    const write = await t.send(
      'POST',
      '/api/admin/projects/default/features',
      { name: uniqueName('pat') },
      { authorization: pat.secret },
    );
    expect(write.statusCode).toBe(403);

    const list = (await t.send('GET', '/api/admin/user/tokens', undefined, asUser(cookie))).json();
    expect(list.pats).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(pat.secret);
    const stored = await t.database.session((run) =>
      run('SELECT * FROM personal_access_tokens WHERE user_id = $1', [id]),
    );
    expect(JSON.stringify(stored)).not.toContain(pat.secret.slice(5));
    expect(JSON.stringify(await api(t).lastEvent('pat-created'))).not.toContain(pat.secret.slice(5));

    expect(
      (await t.send('DELETE', `/api/admin/user/tokens/${pat.id}`, undefined, asUser(cookie))).statusCode,
    ).toBe(200);
    expect(
      (await t.send('GET', '/api/admin/user', undefined, { authorization: pat.secret })).statusCode,
    ).toBe(401);
    expect(
      (await t.send('DELETE', `/api/admin/user/tokens/${pat.id}`, undefined, asUser(cookie))).statusCode,
    ).toBe(404);
  });

  it('an expired token is refused with 401; an expiry in the past or missing is a 400', async () => {
    const { username } = await createUser(t);
    const cookie = await login(t, username);
    const past = await t.send(
      'POST',
      '/api/admin/user/tokens',
      { description: 'x', expiresAt: new Date(clock - 1000).toISOString() },
      asUser(cookie),
    );
    expect(past.statusCode).toBe(400);
    expect(
      (await t.send('POST', '/api/admin/user/tokens', { description: 'x' }, asUser(cookie))).statusCode,
    ).toBe(400);
    const pat = (
      await t.send(
        'POST',
        '/api/admin/user/tokens',
        { description: 'soon', expiresAt: new Date(clock + 60_000).toISOString() },
        asUser(cookie),
      )
    ).json();
    expect(
      (await t.send('GET', '/api/admin/user', undefined, { authorization: pat.secret })).statusCode,
    ).toBe(200);
    clock += 61_000;
    expect(
      (await t.send('GET', '/api/admin/user', undefined, { authorization: pat.secret })).statusCode,
    ).toBe(401);
  });

  it('API tokens own none: the list is empty and creating one is refused', async () => {
    expect((await t.send('GET', '/api/admin/user/tokens')).json()).toEqual({ pats: [] });
    const res = await t.send('POST', '/api/admin/user/tokens', {
      description: 'x',
      expiresAt: new Date(clock + 60_000).toISOString(),
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('password links', () => {
  const noAuth = { authorization: undefined };
  const tokenOf = (url: string) => new URL(url).searchParams.get('token') as string;

  it('a user created without a password gets a one-time link to set one', async () => {
    const username = uniqueName('invited');
    const created = await t.send('POST', '/api/admin/user-admin', { username, rootRole: 'Viewer' });
    expect(created.statusCode).toBe(201);
    const link: string = created.json().inviteLink;
    expect(link).toMatch(/\/new-user\?token=/);
    const token = tokenOf(link);
    const stored = await t.database.session((run) => run('SELECT token_hash FROM reset_tokens'));
    expect(JSON.stringify(stored)).not.toContain(token);

    const valid = await t.send(
      'GET',
      `/auth/reset/validate?token=${encodeURIComponent(token)}`,
      undefined,
      noAuth,
    );
    expect(valid.statusCode).toBe(200);
    expect(valid.json().username).toBe(username);
    const weak = await t.send('POST', '/auth/reset/password', { token, password: 'weak' }, noAuth);
    expect(weak.statusCode).toBe(400);
    const set = await t.send('POST', '/auth/reset/password', { token, password: GOOD_PASSWORD }, noAuth);
    expect(set.statusCode).toBe(200);
    await login(t, username);
    expect(
      (await t.send('POST', '/auth/reset/password', { token, password: 'Another-Good-Pass-8' }, noAuth))
        .statusCode,
    ).toBe(401);
    expect(
      (await t.send('GET', `/auth/reset/validate?token=${encodeURIComponent(token)}`, undefined, noAuth))
        .statusCode,
    ).toBe(401);
  });

  it('an admin makes a reset link by email; using it signs the user out everywhere; links expire', async () => {
    const email = `${uniqueName('reset')}@example.com`;
    const { username } = await createUser(t, 'Viewer', { email });
    const cookie = await login(t, username);
    const made = await t.send('POST', '/api/admin/user-admin/reset-password', { id: email });
    expect(made.statusCode).toBe(200);
    const token = tokenOf(made.json().resetPasswordUrl);
    expect(
      (await t.send('POST', '/auth/reset/password', { token, password: 'Brand-New-Pass-9' }, noAuth))
        .statusCode,
    ).toBe(200);
    expect((await t.send('GET', '/api/admin/user', undefined, asUser(cookie))).statusCode).toBe(401);
    await login(t, username, 'Brand-New-Pass-9');

    const later = tokenOf(
      (await t.send('POST', '/api/admin/user-admin/reset-password', { id: username })).json()
        .resetPasswordUrl,
    );
    clock += 8 * 86_400_000;
    expect(
      (await t.send('POST', '/auth/reset/password', { token: later, password: GOOD_PASSWORD }, noAuth))
        .statusCode,
    ).toBe(401);
    expect(
      (await t.send('POST', '/api/admin/user-admin/reset-password', { id: 'nobody@example.com' })).statusCode,
    ).toBe(404);
    expect(
      (await t.send('POST', '/auth/reset/password', { token: 'made-up', password: GOOD_PASSWORD }, noAuth))
        .statusCode,
    ).toBe(401);
  });
});

describe('user search and admin count', () => {
  it('finds people by part of their name, username or email, case-insensitively, wildcards literal', async () => {
    const tag = uniqueName('zq').replace(/[^a-z0-9]/gi, '');
    const ada = await createUser(t, 'Viewer', { name: `Ada ${tag}`, email: `ada.${tag}@example.com` });
    const bob = await createUser(t, 'Viewer', { email: `bob_${tag}@example.com` });
    const search = async (q: string) => {
      const res = await t.send('GET', `/api/admin/user-admin/search?q=${encodeURIComponent(q)}`);
      expect(res.statusCode).toBe(200);
      return (res.json() as { id: number }[]).map((u) => u.id);
    };
    expect(await search(tag.toUpperCase())).toEqual([ada.id, bob.id]);
    expect(await search(`ada ${tag}`)).toEqual([ada.id]);
    expect(await search(`bob_${tag}`)).toEqual([bob.id]);
    expect(await search(`bob%${tag}`)).toEqual([]);
    const found = (await t.send('GET', `/api/admin/user-admin/search?q=${tag}`)).json()[0];
    expect(found).not.toHaveProperty('passwordHash');
    expect((await t.send('GET', '/api/admin/user-admin/search?q=a')).statusCode).toBe(400);
  });

  it('counts admins with and without a password and admin service accounts', async () => {
    const count = async () => (await t.send('GET', '/api/admin/user-admin/admin-count')).json();
    const before = await count();
    await createUser(t, 'Admin');
    await t.send('POST', '/api/admin/user-admin', {
      email: `${uniqueName('np')}@example.com`,
      rootRole: 'Admin',
    });
    await createUser(t, 'Viewer');
    const after = await count();
    expect(after).toEqual({
      password: before.password + 1,
      noPassword: before.noPassword + 1,
      service: before.service,
    });
  });
});

describe('your profile and roles', () => {
  it('shows the root role, projects and groups, and the roles held directly or through groups', async () => {
    const project = uniqueName('prof');
    const other = uniqueName('prof');
    for (const id of [project, other]) await t.send('POST', '/api/admin/projects', { id, name: id });
    const person = await createUser(t, 'Editor');
    const group = await t.send('POST', '/api/admin/groups', {
      name: uniqueName('team'),
      users: [{ user: { id: person.id } }],
    });
    await t.send('POST', `/api/admin/projects/${project}/access`, { roles: [5], users: [{ id: person.id }] });
    await t.send('POST', `/api/admin/projects/${other}/access`, {
      roles: [6],
      groups: [{ id: group.json().id }],
    });
    const me = asUser(await login(t, person.username));

    const profile = (await t.send('GET', '/api/admin/user/profile', undefined, me)).json();
    expect(profile).toMatchObject({
      rootRole: { id: 2, name: 'Editor', type: 'root' },
      // A root role counts as a role in `default`, as Unleash lists it.
      projects: ['default', project, other].sort(),
      groups: [{ id: group.json().id }],
      subscriptions: [],
      features: [],
      canChangePassword: true,
    });
    const roles = async (query = '') =>
      (await t.send('GET', `/api/admin/user/roles${query}`, undefined, me))
        .json()
        .roles.map((r: { name: string }) => r.name);
    expect(await roles()).toEqual(['Editor', 'Member', 'Reader']);
    expect(await roles(`?projectId=${other}`)).toEqual(['Reader']);
    expect(await roles('?projectId=default')).toEqual([]);
    expect((await t.send('GET', '/api/admin/user/profile')).statusCode).toBe(400);
  });
});

describe('inactive users, and people and groups for pickers', () => {
  it('lists people not seen for 180 days and deletes only those of the ids given', async () => {
    const stale = await createUser(t, 'Viewer');
    const staleToo = await createUser(t, 'Viewer');
    const fresh = await createUser(t, 'Viewer');
    await t.database.session(async (run) => {
      await run(
        `UPDATE users SET created_at = now() - interval '400 days', seen_at = now() - interval '200 days' WHERE id = $1`,
        [stale.id],
      );
      await run(`UPDATE users SET created_at = now() - interval '400 days', seen_at = NULL WHERE id = $1`, [
        staleToo.id,
      ]);
    });
    const ids = async () =>
      (await t.send('GET', '/api/admin/user-admin/inactive'))
        .json()
        .inactiveUsers.map((u: { id: number }) => u.id);
    expect(await ids()).toEqual(expect.arrayContaining([stale.id, staleToo.id]));
    expect(await ids()).not.toContain(fresh.id);

    const res = await t.send('POST', '/api/admin/user-admin/inactive/delete', {
      ids: [stale.id, fresh.id, 999_999],
    });
    expect(res.statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/user-admin/${stale.id}`)).statusCode).toBe(404);
    expect((await t.send('GET', `/api/admin/user-admin/${fresh.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/user-admin/${staleToo.id}`)).statusCode).toBe(200);
    expect((await api(t).lastEvent('user-deleted'))?.pre_data).toMatchObject({ id: stale.id });
  });

  it('shows people and groups to any signed-in caller, without admin data', async () => {
    const viewer = await createUser(t, 'Viewer', { email: `${uniqueName('pk')}@example.com` });
    const group = await t.send('POST', '/api/admin/groups', {
      name: uniqueName('pickers'),
      users: [{ user: { id: viewer.id } }],
    });
    const res = await t.send(
      'GET',
      '/api/admin/user-admin/access',
      undefined,
      asUser(await login(t, viewer.username)),
    );
    expect(res.statusCode).toBe(200);
    const me = res.json().users.find((u: { id: number }) => u.id === viewer.id);
    expect(Object.keys(me).sort()).toEqual(['accountType', 'email', 'id', 'imageUrl', 'username']);
    expect(res.json().groups).toContainEqual({
      id: group.json().id,
      name: group.json().name,
      userCount: 1,
      rootRole: null,
    });
  });
});
