import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, GOOD_PASSWORD, login } from '../../../test/people.js';
import { loadConfig } from '../../config.js';

const DAY = 86_400_000;
const TOKENS = '/api/admin/invite-link/tokens';
const noAuth = { authorization: undefined };

let t: TestApp;
let clock = Date.parse('2026-01-31T10:00:00.000Z');
beforeAll(async () => {
  t = await startTestApp({
    now: () => new Date(clock),
    config: { PUBLIC_URL: 'https://flags.example.com/' },
  });
});
afterAll(() => t.close());

/** Creates a token expiring in `days` days and returns the creation answer. */
async function newToken(days = 7, name = uniqueName('invite')) {
  const res = await t.send('POST', TOKENS, { name, expiresAt: new Date(clock + days * DAY).toISOString() });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { secret: string; url: string; name: string; expiresAt: string; enabled: boolean };
}

const signup = (secret: string, body: Record<string, unknown>) =>
  t.send('POST', `/invite/${secret}/signup`, body, noAuth);
const validate = (secret: string) => t.send('GET', `/invite/${secret}/validate`, undefined, noAuth);

/** Every row a signup could write, to prove a refused one wrote nothing. */
async function footprint() {
  const a = api(t);
  return {
    users: await a.count('users'),
    signups: await a.count('public_signup_tokens_user'),
    events: await a.count('events'),
  };
}

describe('/api/admin/invite-link/tokens', () => {
  it('creates a Viewer token (201, Location); lists and GETs show the same secret and URL, not cached', async () => {
    const name = uniqueName('anchor');
    const res = await t.send('POST', TOKENS, { name, expiresAt: new Date(clock + 7 * DAY).toISOString() });
    expect(res.statusCode).toBe(201);
    const token = res.json();
    expect(token.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.location).toBe(`tokens/${token.secret}`);
    expect(token).toEqual({
      secret: token.secret,
      url: `https://flags.example.com/new-user?invite=${token.secret}`,
      name,
      enabled: true,
      expiresAt: new Date(clock + 7 * DAY).toISOString(),
      createdAt: new Date(clock).toISOString(),
      createdBy: 'admin',
      users: [],
      role: expect.objectContaining({ id: 3, name: 'Viewer', type: 'root' }),
    });

    expect(res.headers['cache-control']).toBe('no-store');
    const got = await t.send('GET', `${TOKENS}/${token.secret}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(token);
    expect(got.headers['cache-control']).toBe('no-store');
    const list = await t.send('GET', TOKENS);
    expect(list.json().tokens).toContainEqual(token);
    expect(list.headers['cache-control']).toBe('no-store');

    const created = await api(t).lastEvent('public-signup-token-created');
    expect(created?.created_by).toBe('admin');
    expect(created?.data).toMatchObject({
      name,
      role: { id: 3, name: 'Viewer', type: 'root' },
      expiresAt: token.expiresAt,
      secret: `${token.secret.slice(0, 6)}…`,
      url: null,
      enabled: true,
    });
  });

  it('stores the secret sealed and its hash, never in plain; no event holds the secret', async () => {
    const { secret } = await newToken();
    const rows = await t.database.session((run) => run('SELECT * FROM public_signup_tokens'));
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(secret);
    const stored = await t.database.session((run) =>
      run('SELECT display_prefix, secret_sealed FROM public_signup_tokens WHERE secret_hash = $1', [
        createHash('sha256').update(secret).digest('hex'),
      ]),
    );
    expect(stored).toEqual([
      { display_prefix: `${secret.slice(0, 6)}…`, secret_sealed: expect.stringMatching(/^v1\./) },
    ]);
    const events = await t.database.session((run) => run('SELECT data, pre_data FROM events'));
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(String(stored[0]?.secret_sealed));
  });

  it('a token made before secrets were kept (no sealed secret) shows its prefix and url null', async () => {
    const secret = 'feed00112233445566778899aabbccdd';
    const hash = createHash('sha256').update(secret).digest('hex');
    await t.database.session((run) =>
      run(
        `INSERT INTO public_signup_tokens (secret_hash, display_prefix, name, expires_at, role_id, created_by, created_at)
         VALUES ($1, 'feed00…', 'from before', $2, 3, 'admin', $3)`,
        [hash, new Date(clock + DAY).toISOString(), new Date(clock).toISOString()],
      ),
    );
    const recent = await newToken();
    const expected = { secret: 'feed00…', url: null, name: 'from before', enabled: true };
    expect((await t.send('GET', `${TOKENS}/${secret}`)).json()).toMatchObject(expected);
    // In one list: the old token with its prefix, a recent one with its secret and link.
    const tokens = (await t.send('GET', TOKENS)).json().tokens;
    expect(tokens).toContainEqual(expect.objectContaining(expected));
    expect(tokens).toContainEqual(expect.objectContaining({ secret: recent.secret, url: recent.url }));
    const put = await t.send('PUT', `${TOKENS}/${secret}`, { enabled: false });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ ...expected, enabled: false });
  });

  it('a sealed secret that does not open (another key, another row) shows the prefix, not a 500', async () => {
    const one = await newToken();
    const other = await newToken();
    // The sealed value of one token moved to another row: bound to its own row, it does not open.
    await t.database.session((run) =>
      run(
        `UPDATE public_signup_tokens SET secret_sealed = (SELECT secret_sealed FROM public_signup_tokens WHERE secret_hash = $1)
         WHERE secret_hash = $2`,
        [
          createHash('sha256').update(one.secret).digest('hex'),
          createHash('sha256').update(other.secret).digest('hex'),
        ],
      ),
    );
    const got = await t.send('GET', `${TOKENS}/${other.secret}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ secret: `${other.secret.slice(0, 6)}…`, url: null });
    expect(JSON.stringify(got.json())).not.toContain(one.secret);
    expect((await t.send('GET', `${TOKENS}/${one.secret}`)).json()).toMatchObject({ secret: one.secret });
  });

  it('caps expiresAt at one calendar month from now on create (Jan 31 → Feb 28), not on update', async () => {
    clock = Date.parse('2026-01-31T10:00:00.000Z');
    const token = await newToken(365 * 4);
    expect(token.expiresAt).toBe('2026-02-28T10:00:00.000Z');
    const later = '2031-06-01T00:00:00.000Z';
    const updated = await t.send('PUT', `${TOKENS}/${token.secret}`, { expiresAt: later });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      expiresAt: later,
      enabled: true,
      secret: token.secret,
      url: token.url,
    });
    expect(updated.headers['cache-control']).toBe('no-store');
  });

  it('400 for an expiry in the past, a missing or extra field or a wrong type on create; nothing written', async () => {
    const before = await api(t).count('public_signup_tokens');
    for (const body of [
      { name: 'past', expiresAt: new Date(clock - 1000).toISOString() },
      { name: 'no-expiry' },
      { expiresAt: new Date(clock + DAY).toISOString() },
      { name: 'extra', expiresAt: new Date(clock + DAY).toISOString(), enabled: false },
      { name: 'wrong', expiresAt: 12 },
      { name: '', expiresAt: new Date(clock + DAY).toISOString() },
    ]) {
      const res = await t.send('POST', TOKENS, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect(await api(t).count('public_signup_tokens')).toBe(before);
  });

  it('disables and re-enables a token, with public-signup-token-updated (data and preData)', async () => {
    const token = await newToken();
    const prefix = `${token.secret.slice(0, 6)}…`;
    const off = await t.send('PUT', `${TOKENS}/${token.secret}`, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().enabled).toBe(false);
    expect((await t.send('GET', `${TOKENS}/${token.secret}`)).json().enabled).toBe(false);
    const event = await api(t).lastEvent('public-signup-token-updated');
    expect(event?.data).toEqual({
      secret: prefix,
      name: token.name,
      role: expect.objectContaining({ id: 3, name: 'Viewer', type: 'root' }),
      enabled: false,
      expiresAt: token.expiresAt,
    });
    expect(event?.pre_data).toMatchObject({ secret: prefix, enabled: true, name: token.name });
    expect(JSON.stringify(event)).not.toContain(token.secret);
    expect(event?.created_by).toBe('admin');

    const on = await t.send('PUT', `${TOKENS}/${token.secret}`, { enabled: true });
    expect(on.json().enabled).toBe(true);
    expect((await api(t).lastEvent('public-signup-token-updated'))?.data).toMatchObject({ enabled: true });
  });

  it('400 for an empty update, a wrong type or an extra field; 404 for an unknown token or a display prefix', async () => {
    const token = await newToken();
    const events = await api(t).count('events');
    for (const body of [{}, { expiresAt: 12 }, { enabled: 'no' }, { name: 'renamed' }]) {
      const res = await t.send('PUT', `${TOKENS}/${token.secret}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await api(t).count('events')).toBe(events);
    for (const secret of ['no-such-token', encodeURIComponent(`${token.secret.slice(0, 6)}…`)]) {
      const put = await t.send('PUT', `${TOKENS}/${secret}`, { enabled: true });
      expect(put.statusCode).toBe(404);
      expect(put.json()).toMatchObject({
        name: 'NotFoundError',
        message: 'Could not find public signup token.',
      });
      expect((await t.send('GET', `${TOKENS}/${secret}`)).statusCode).toBe(404);
    }
    expect((await t.send('GET', `${TOKENS}/${token.secret}`)).json().enabled).toBe(true);
  });

  it('an expired token reports enabled false and does not validate, until its expiry is moved on', async () => {
    const token = await newToken(2);
    expect((await validate(token.secret)).statusCode).toBe(200);
    clock += 2 * DAY;
    expect((await t.send('GET', `${TOKENS}/${token.secret}`)).json().enabled).toBe(false);
    expect((await validate(token.secret)).statusCode).toBe(400);
    // Enabling does not revive an expired token; a new expiry does.
    expect((await t.send('PUT', `${TOKENS}/${token.secret}`, { enabled: true })).json().enabled).toBe(false);
    const extended = await t.send('PUT', `${TOKENS}/${token.secret}`, {
      expiresAt: new Date(clock + DAY).toISOString(),
    });
    expect(extended.json().enabled).toBe(true);
    expect((await validate(token.secret)).statusCode).toBe(200);
  });

  it('the event search finds both token events by the name, also one with quotes and a backslash', async () => {
    for (const name of [uniqueName('Invite colleagues'), uniqueName('Ops "beta" \\ invite')]) {
      const token = await newToken(7, name);
      await t.send('PUT', `${TOKENS}/${token.secret}`, { enabled: false });
      const found = await t.send('GET', `/api/admin/search/events?query=${encodeURIComponent(name)}`);
      expect(found.statusCode).toBe(200);
      expect(
        found.json().events.map((e: { type: string }) => e.type),
        name,
      ).toEqual(['public-signup-token-updated', 'public-signup-token-created']);
      expect(JSON.stringify(found.json())).not.toContain(token.secret);
    }
  });

  it('a Viewer sees no token and changes none (403)', async () => {
    const token = await newToken();
    const { username } = await createUser(t, 'Viewer');
    const viewer = asUser(await login(t, username));
    for (const [method, path, body] of [
      ['GET', TOKENS, undefined],
      ['GET', `${TOKENS}/${token.secret}`, undefined],
      ['PUT', `${TOKENS}/${token.secret}`, { enabled: false }],
    ] as const) {
      const res = await t.send(method, path, body, viewer);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json().name).toBe('NoAccessError');
      expect(res.body).not.toContain(token.secret);
    }
    expect((await t.send('GET', `${TOKENS}/${token.secret}`)).json().enabled).toBe(true);
  });

  it('only admins manage tokens', async () => {
    const { username } = await createUser(t, 'Editor');
    const editor = asUser(await login(t, username));
    expect((await t.send('GET', TOKENS, undefined, editor)).statusCode).toBe(403);
    expect(
      (await t.send('POST', TOKENS, { name: 'x', expiresAt: '2030-01-01T00:00:00Z' }, editor)).statusCode,
    ).toBe(403);
    expect((await t.send('GET', TOKENS, undefined, noAuth)).statusCode).toBe(401);
  });
});

describe('/invite/:token', () => {
  it('validate: 200 for a valid token without any credential; 400 for unknown and disabled ones', async () => {
    const token = await newToken();
    const ok = await validate(token.secret);
    expect(ok.statusCode).toBe(200);
    const unknown = await validate('0123456789abcdef0123456789abcdef');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().name).toBe('ValidationError');
    await t.send('PUT', `${TOKENS}/${token.secret}`, { enabled: false });
    expect((await validate(token.secret)).statusCode).toBe(400);
  });

  it('signup creates a Viewer who can sign in, listed on the token, with both events by the system user', async () => {
    const token = await newToken();
    const username = uniqueName('hunter');
    const email = `${username}@example.com`;
    const res = await signup(token.secret, { username, email, name: 'Hunter', password: GOOD_PASSWORD });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({ username, email, name: 'Hunter', rootRole: 3, accountType: 'User' });
    expect(JSON.stringify(user)).not.toMatch(/password|scrypt/i);

    const cookie = await login(t, email);
    const me = await t.send('GET', '/api/admin/user', undefined, asUser(cookie));
    expect(me.json().user).toMatchObject({ id: user.id, rootRole: 3 });
    // A Viewer: cannot manage invite links.
    expect((await t.send('GET', TOKENS, undefined, asUser(cookie))).statusCode).toBe(403);

    const listed = (await t.send('GET', `${TOKENS}/${token.secret}`)).json();
    expect(listed.users.map((u: { id: number }) => u.id)).toEqual([user.id]);
    expect(listed.users[0]).toMatchObject({ username, email });

    const a = api(t);
    const created = await a.lastEvent('user-created');
    expect(created).toMatchObject({ created_by: 'unleash_system_user', created_by_user_id: -1337 });
    expect(created?.data).toMatchObject({ id: user.id, username, email, rootRole: 3 });
    const added = await a.lastEvent('public-signup-token-user-added');
    expect(added).toMatchObject({ created_by: 'unleash_system_user', created_by_user_id: -1337 });
    expect(added?.data).toEqual({ secret: `${token.secret.slice(0, 6)}…`, userId: user.id });
    const events = await t.database.session((run) => run('SELECT data, pre_data FROM events'));
    expect(JSON.stringify(events)).not.toMatch(/scrypt|Correct-Horse/);
    expect(JSON.stringify(events)).not.toContain(token.secret);
  });

  it('signup with only email and password works (username and name are optional)', async () => {
    const token = await newToken();
    const email = `${uniqueName('min')}@example.com`;
    const res = await signup(token.secret, { email, password: GOOD_PASSWORD });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email, rootRole: 3 });
    await login(t, email);
  });

  it('400 for a weak password, a bad email, a missing or extra field; nothing written', async () => {
    const token = await newToken();
    const before = await footprint();
    const email = `${uniqueName('weak')}@example.com`;
    const weak = await signup(token.secret, { email, password: 'password' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().details.map((d: { message: string }) => d.message)).toContain(
      'The password must contain at least one uppercase letter.',
    );
    for (const body of [
      { email, password: '' },
      { email: 'not-an-email', password: GOOD_PASSWORD },
      { password: GOOD_PASSWORD },
      { email },
      { email, password: GOOD_PASSWORD, rootRole: 1 },
      { email, password: GOOD_PASSWORD, username: 'has space' },
    ]) {
      const res = await signup(token.secret, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await footprint()).toEqual(before);
    expect((await t.send('GET', `${TOKENS}/${token.secret}`)).json().users).toEqual([]);
  });

  it('409 for a taken username or email (any letter case); nothing written', async () => {
    const token = await newToken();
    const existing = await createUser(t, 'Viewer', { email: `${uniqueName('taken')}@example.com` });
    const before = await footprint();
    const byName = await signup(token.secret, {
      username: existing.username.toUpperCase(),
      email: `${uniqueName('free')}@example.com`,
      password: GOOD_PASSWORD,
    });
    expect(byName.statusCode).toBe(409);
    expect(byName.json().name).toBe('NameExistsError');
    const email = `${uniqueName('twice')}@example.com`;
    expect((await signup(token.secret, { email, password: GOOD_PASSWORD })).statusCode).toBe(201);
    const after = await footprint();
    expect(after.users).toBe(before.users + 1);
    const again = await signup(token.secret, { email: email.toUpperCase(), password: GOOD_PASSWORD });
    expect(again.statusCode).toBe(409);
    expect(await footprint()).toEqual(after);
  });

  it('400 for a disabled, expired or unknown token, checked before the password; nothing written', async () => {
    const disabled = await newToken();
    await t.send('PUT', `${TOKENS}/${disabled.secret}`, { enabled: false });
    const expiring = await newToken(1);
    clock += DAY;
    const before = await footprint();
    for (const secret of [disabled.secret, expiring.secret, '0123456789abcdef0123456789abcdef']) {
      for (const password of [GOOD_PASSWORD, 'weak']) {
        const res = await signup(secret, { email: `${uniqueName('late')}@example.com`, password });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toMatch(/invite link is not valid/);
      }
    }
    expect(await footprint()).toEqual(before);
  });
});

describe('invite URL without PUBLIC_URL', () => {
  it('is http://localhost:<PORT>/new-user?invite=<secret>', async () => {
    const other = await startTestApp({ config: { PORT: 4321 } });
    try {
      const res = await other.send('POST', TOKENS, {
        name: 'local',
        expiresAt: new Date(Date.now() + DAY).toISOString(),
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().url).toBe(`http://localhost:4321/new-user?invite=${res.json().secret}`);
    } finally {
      await other.close();
    }
  });
});

describe('SECRETS_KEY', () => {
  it('is 32 bytes in hex or base64, or the service refuses to start', () => {
    expect(loadConfig({ SECRETS_KEY: 'ab'.repeat(32) }).SECRETS_KEY).toBe('ab'.repeat(32));
    expect(loadConfig({ SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') }).SECRETS_KEY).toMatch(/=$/);
    for (const bad of ['ab'.repeat(31), Buffer.alloc(16).toString('base64'), 'not a key']) {
      expect(() => loadConfig({ SECRETS_KEY: bad }), bad).toThrow(/SECRETS_KEY/);
    }
  });

  it('seals with the configured key: links show again, and no key is kept in the database', async () => {
    const other = await startTestApp({ config: { SECRETS_KEY: 'ab'.repeat(32) } });
    try {
      const res = await other.send('POST', TOKENS, {
        name: 'keyed',
        expiresAt: new Date(Date.now() + DAY).toISOString(),
      });
      expect(res.statusCode).toBe(201);
      const got = await other.send('GET', `${TOKENS}/${res.json().secret}`);
      expect(got.json()).toMatchObject({ secret: res.json().secret, url: res.json().url });
      const keys = await other.database.session((run) =>
        run(`SELECT name FROM settings WHERE name = 'secrets.key'`),
      );
      expect(keys).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
