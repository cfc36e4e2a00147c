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

const BASE = '/api/admin/service-account';
const inADay = () => new Date(clock + 86_400_000).toISOString();

async function createAccount(rootRole: string | number = 'Editor') {
  const username = uniqueName('bot');
  const res = await t.send('POST', BASE, { username, name: `Bot ${username}`, rootRole });
  if (res.statusCode !== 201) throw new Error(`createAccount ${res.statusCode}: ${res.body}`);
  return res.json() as { id: number; username: string; name: string; rootRole: number };
}

async function createToken(id: number, expiresAt = inADay()) {
  const res = await t.send('POST', `${BASE}/${id}/token`, { description: 'ci', expiresAt });
  if (res.statusCode !== 201) throw new Error(`createToken ${res.statusCode}: ${res.body}`);
  return res.json() as { id: number; secret: string; userId: number };
}

const asToken = (secret: string) => ({ authorization: secret });

describe('/api/admin/service-account', () => {
  it('creates (201), lists, updates and deletes a service account, each with its event', async () => {
    const username = uniqueName('ci-bot');
    const res = await t.send('POST', BASE, { username, name: 'CI pipeline', rootRole: 'editor' });
    expect(res.statusCode).toBe(201);
    const account = res.json();
    expect(res.headers.location).toBe(`service-account/${account.id}`);
    expect(account).toMatchObject({
      username,
      name: 'CI pipeline',
      rootRole: 2,
      accountType: 'Service Account',
      seenAt: null,
      tokens: [],
    });
    expect((await api(t).lastEvent('service-account-created'))?.data).toEqual({
      id: account.id,
      name: 'CI pipeline',
      username,
      rootRole: 2,
    });

    const list = (await t.send('GET', BASE)).json();
    expect(list.serviceAccounts).toContainEqual(account);
    expect(list.rootRoles.map((r: { name: string }) => r.name)).toEqual(['Admin', 'Editor', 'Viewer']);
    // People and service accounts are listed apart, as in Unleash.
    const people = (await t.send('GET', '/api/admin/user-admin')).json().users;
    expect(people.map((u: { id: number }) => u.id)).not.toContain(account.id);
    const person = await createUser(t);
    expect((await t.send('GET', BASE)).json().serviceAccounts.map((a: { id: number }) => a.id)).not.toContain(
      person.id,
    );

    const updated = await t.send('PUT', `${BASE}/${account.id}`, { name: 'CI', rootRole: 3 });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ id: account.id, username, name: 'CI', rootRole: 3 });
    const updateEvent = await api(t).lastEvent('service-account-updated');
    expect(updateEvent?.pre_data).toEqual({ id: account.id, name: 'CI pipeline', username, rootRole: 2 });
    expect(updateEvent?.data).toEqual({ id: account.id, name: 'CI', username, rootRole: 3 });
    const events = await api(t).count('events');
    expect(
      (await t.send('PUT', `${BASE}/${account.id}`, { name: 'CI', rootRole: 'Viewer' })).statusCode,
    ).toBe(200);
    expect(await api(t).count('events')).toBe(events);

    expect((await t.send('DELETE', `${BASE}/${account.id}`)).statusCode).toBe(200);
    expect((await api(t).lastEvent('service-account-deleted'))?.pre_data).toMatchObject({ id: account.id });
    expect((await t.send('GET', BASE)).json().serviceAccounts.map((a: { id: number }) => a.id)).not.toContain(
      account.id,
    );
    expect((await t.send('DELETE', `${BASE}/${account.id}`)).statusCode).toBe(404);
  });

  it('400 for missing or bad fields and unknown or project roles, 409 for a taken username; nothing written', async () => {
    const { username } = await createUser(t);
    const before = [await api(t).count('users'), await api(t).count('events')];
    const conflict = await t.send('POST', BASE, { username: username.toUpperCase(), name: 'x', rootRole: 3 });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().name).toBe('NameExistsError');
    for (const body of [
      { name: 'x', rootRole: 3 },
      { username: uniqueName('b'), rootRole: 3 },
      { username: uniqueName('b'), name: 'x' },
      { username: 'has space', name: 'x', rootRole: 3 },
      { username: uniqueName('b'), name: '  ', rootRole: 3 },
      { username: uniqueName('b'), name: 'x', rootRole: 'Boss' },
      { username: uniqueName('b'), name: 'x', rootRole: 'Owner' },
      { username: uniqueName('b'), name: 'x', rootRole: 99 },
      { username: uniqueName('b'), name: 'x', rootRole: 3, password: GOOD_PASSWORD },
    ]) {
      expect((await t.send('POST', BASE, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect([await api(t).count('users'), await api(t).count('events')]).toEqual(before);

    const account = await createAccount();
    const snapshot = [await api(t).count('users'), await api(t).count('events')];
    for (const body of [{ rootRole: 'Member' }, { name: '' }, { username: 'renamed' }]) {
      expect((await t.send('PUT', `${BASE}/${account.id}`, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect([await api(t).count('users'), await api(t).count('events')]).toEqual(snapshot);
    expect((await t.send('GET', BASE)).json().serviceAccounts).toContainEqual(
      expect.objectContaining({ id: account.id, rootRole: 2 }),
    );
  });

  it("404 for unknown ids, and for a person's id, on every service account route", async () => {
    const person = await createUser(t);
    const account = await createAccount();
    const token = await createToken(account.id);
    for (const id of [999999, person.id]) {
      for (const [method, url, body] of [
        ['PUT', `${BASE}/${id}`, { name: 'x' }],
        ['DELETE', `${BASE}/${id}`, undefined],
        ['GET', `${BASE}/${id}/token`, undefined],
        ['POST', `${BASE}/${id}/token`, { description: 'x', expiresAt: inADay() }],
        ['DELETE', `${BASE}/${id}/token/${token.id}`, undefined],
      ] as const) {
        expect((await t.send(method, url, body)).statusCode, `${method} ${url}`).toBe(404);
      }
    }
    // A token of another account is not this one's.
    const other = await createAccount();
    expect((await t.send('DELETE', `${BASE}/${other.id}/token/${token.id}`)).statusCode).toBe(404);
    expect((await t.send('GET', '/api/admin/user', undefined, asToken(token.secret))).statusCode).toBe(200);
    expect((await t.send('GET', `/api/admin/user-admin/${person.id}`)).statusCode).toBe(200);
  });

  it('needs ADMIN: an Editor is refused everywhere', async () => {
    const account = await createAccount();
    const as = asUser(await login(t, (await createUser(t, 'Editor')).username));
    for (const [method, url, body] of [
      ['GET', BASE, undefined],
      ['POST', BASE, { username: uniqueName('b'), name: 'x', rootRole: 3 }],
      ['PUT', `${BASE}/${account.id}`, { name: 'x' }],
      ['DELETE', `${BASE}/${account.id}`, undefined],
      ['GET', `${BASE}/${account.id}/token`, undefined],
      ['POST', `${BASE}/${account.id}/token`, { description: 'x', expiresAt: inADay() }],
    ] as const) {
      expect((await t.send(method, url, body, as)).statusCode, `${method} ${url}`).toBe(403);
    }
  });
});

describe('service account tokens', () => {
  it('are shown once, act with the account and its root role, and stop when deleted', async () => {
    const account = await createAccount('Editor');
    const expiresAt = inADay();
    const res = await t.send('POST', `${BASE}/${account.id}/token`, { description: 'deploys', expiresAt });
    expect(res.statusCode).toBe(201);
    const token = res.json();
    expect(token.secret).toMatch(/^user:[0-9a-f]{56}$/);
    expect(token).toMatchObject({ description: 'deploys', userId: account.id, expiresAt, seenAt: null });

    const listed = (await t.send('GET', `${BASE}/${account.id}/token`)).json();
    const { secret, ...withoutSecret } = token;
    expect(listed.pats).toEqual([withoutSecret]);
    const accounts = (await t.send('GET', BASE)).json().serviceAccounts;
    expect(accounts.find((a: { id: number }) => a.id === account.id).tokens).toEqual(listed.pats);
    expect(JSON.stringify(accounts)).not.toContain(secret);
    const stored = await t.database.session((run) =>
      run('SELECT * FROM personal_access_tokens WHERE user_id = $1', [account.id]),
    );
    expect(JSON.stringify(stored)).not.toContain(token.secret.slice(5));
    const created = await api(t).lastEvent('pat-created');
    expect(created?.data).toMatchObject({ id: token.id, userId: account.id, description: 'deploys' });
    expect(JSON.stringify(created)).not.toContain(token.secret.slice(5));

    // The token is the account: an Editor, recorded under its username.
    const as = asToken(token.secret);
    const me = (await t.send('GET', '/api/admin/user', undefined, as)).json();
    expect(me.user).toMatchObject({ id: account.id, accountType: 'Service Account', rootRole: 2 });
    const flag = uniqueName('by-bot');
    expect(
      (await t.send('POST', '/api/admin/projects/default/features', { name: flag }, as)).statusCode,
    ).toBe(200);
    expect((await api(t).flagEvents(flag)).events[0]).toMatchObject({
      type: 'feature-created',
      createdBy: account.username,
      createdByUserId: account.id,
    });
    expect((await t.send('GET', '/api/admin/user-admin', undefined, as)).statusCode).toBe(403);

    // A new root role applies to its tokens at once.
    expect((await t.send('PUT', `${BASE}/${account.id}`, { rootRole: 'Viewer' })).statusCode).toBe(200);
    const refused = await t.send(
      'POST',
      '/api/admin/projects/default/features',
      { name: uniqueName('f') },
      as,
    );
    expect(refused.statusCode).toBe(403);

    expect((await t.send('DELETE', `${BASE}/${account.id}/token/${token.id}`)).statusCode).toBe(200);
    expect((await api(t).lastEvent('pat-deleted'))?.pre_data).toMatchObject({
      id: token.id,
      userId: account.id,
    });
    expect((await t.send('GET', '/api/admin/user', undefined, as)).statusCode).toBe(401);
    expect((await t.send('DELETE', `${BASE}/${account.id}/token/${token.id}`)).statusCode).toBe(404);
  });

  it('act with a custom root role too', async () => {
    const role = await t.send('POST', '/api/admin/roles', {
      name: uniqueName('Segment keeper'),
      type: 'root-custom',
      permissions: [{ name: 'CREATE_SEGMENT' }],
    });
    expect(role.statusCode).toBe(201);
    const account = await createAccount(role.json().name);
    expect(account.rootRole).toBe(role.json().id);
    const as = asToken((await createToken(account.id)).secret);
    const segment = await t.send(
      'POST',
      '/api/admin/segments',
      { name: uniqueName('seg'), constraints: [] },
      as,
    );
    expect(segment.statusCode).toBe(201);
    expect(
      (await t.send('POST', '/api/admin/projects/default/features', { name: uniqueName('f') }, as))
        .statusCode,
    ).toBe(403);
  });

  it('all stop when the account is deleted', async () => {
    const account = await createAccount();
    const first = await createToken(account.id);
    const second = await createToken(account.id);
    for (const { secret } of [first, second]) {
      expect((await t.send('GET', '/api/admin/user', undefined, asToken(secret))).statusCode).toBe(200);
    }
    expect((await t.send('DELETE', `${BASE}/${account.id}`)).statusCode).toBe(200);
    for (const { secret } of [first, second]) {
      expect((await t.send('GET', '/api/admin/user', undefined, asToken(secret))).statusCode).toBe(401);
    }
    expect(await api(t).count('personal_access_tokens', 'user_id = $1', [account.id])).toBe(0);
  });

  it('need an expiry in the future; an expired one is refused', async () => {
    const account = await createAccount();
    const before = await api(t).count('personal_access_tokens');
    for (const body of [
      { description: 'x' },
      { description: 'x', expiresAt: new Date(clock - 1000).toISOString() },
      { description: '', expiresAt: inADay() },
      { expiresAt: inADay() },
    ]) {
      expect(
        (await t.send('POST', `${BASE}/${account.id}/token`, body)).statusCode,
        JSON.stringify(body),
      ).toBe(400);
    }
    expect(await api(t).count('personal_access_tokens')).toBe(before);
    const soon = await createToken(account.id, new Date(clock + 60_000).toISOString());
    expect((await t.send('GET', '/api/admin/user', undefined, asToken(soon.secret))).statusCode).toBe(200);
    clock += 61_000;
    expect((await t.send('GET', '/api/admin/user', undefined, asToken(soon.secret))).statusCode).toBe(401);
  });
});

describe('password login', () => {
  it('refuses a service account, even one given a password through user administration', async () => {
    const account = await createAccount('Admin');
    const attempt = () =>
      t.send(
        'POST',
        '/auth/simple/login',
        { username: account.username, password: GOOD_PASSWORD },
        { authorization: undefined },
      );
    const first = await attempt();
    expect(first.statusCode).toBe(401);
    expect(first.headers['set-cookie']).toBeUndefined();
    const set = await t.send('POST', `/api/admin/user-admin/${account.id}/change-password`, {
      password: GOOD_PASSWORD,
    });
    expect(set.statusCode).toBe(200);
    const second = await attempt();
    expect(second.statusCode).toBe(401);
    expect(second.json().name).toBe('AuthenticationRequired');
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(await api(t).count('user_sessions', 'user_id = $1', [account.id])).toBe(0);
  });
});
