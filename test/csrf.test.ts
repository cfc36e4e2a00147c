import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { asUser, createUser, GOOD_PASSWORD, login } from './people.js';

// Issue 43, finding 4: a page on another port of the same host (the same site, so the SameSite=Lax
// cookie goes along) must not change anything as the signed-in user.
const HOST = '127.0.0.1:4242';
const OWN = `http://${HOST}`;
const OTHER_PORT = 'http://127.0.0.1:8080';

async function flagOn(t: TestApp): Promise<string> {
  const name = uniqueName('csrf');
  expect((await t.send('POST', '/api/admin/projects/default/features', { name })).statusCode).toBe(200);
  const on = await t.send('POST', `/api/admin/projects/default/features/${name}/environments/production/on`);
  expect(on.statusCode).toBe(200);
  return name;
}

async function enabled(t: TestApp, name: string): Promise<boolean> {
  const res = await t.send('GET', `/api/admin/projects/default/features/${name}`);
  return res.json().environments.find((e: { name: string }) => e.name === 'production').enabled;
}

/** `POST …/production/off` as a browser form would send it: text/plain, no body, the cookie. */
const turnOff = (t: TestApp, name: string, headers: Record<string, string | undefined>) =>
  t.request({
    method: 'POST',
    url: `/api/admin/projects/default/features/${name}/environments/production/off`,
    headers: { host: HOST, 'content-type': 'text/plain', ...headers },
  });

function expectRefused(res: { statusCode: number; json: () => Record<string, unknown> }) {
  expect(res.statusCode).toBe(403);
  const body = res.json();
  expect(body).toMatchObject({ name: 'NoAccessError' });
  expect(body.message).toMatch(/another site/);
  expect(typeof body.id).toBe('string');
}

describe('signed-in writes from another site', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await startTestApp();
    cookie = await login(t, (await createUser(t, 'Admin')).username);
  });
  afterAll(() => t.close());

  it('are refused (403) with a foreign Origin, a foreign Referer or Origin: null; the flag stays on', async () => {
    const name = await flagOn(t);
    for (const from of [
      { origin: OTHER_PORT },
      { origin: 'http://localhost:4242' },
      { origin: 'https://127.0.0.1:4242' },
      { referer: `${OTHER_PORT}/page.html` },
      { origin: 'null' },
      { origin: 'not a url' },
    ]) {
      expectRefused(await turnOff(t, name, { ...asUser(cookie), ...from }));
    }
    // Other methods too: a DELETE from there deletes nothing.
    const remove = await t.request({
      method: 'DELETE',
      url: `/api/admin/projects/default/features/${name}`,
      headers: { ...asUser(cookie), host: HOST, origin: OTHER_PORT },
    });
    expectRefused(remove);
    expect(await enabled(t, name)).toBe(true);
  });

  it('are accepted from the service itself, and without Origin or Referer (scripts, tools)', async () => {
    for (const from of [{ origin: OWN }, { referer: `${OWN}/projects/default` }, {}]) {
      const name = await flagOn(t);
      const res = await turnOff(t, name, { ...asUser(cookie), ...from });
      expect(res.statusCode, JSON.stringify(from)).toBe(200);
      expect(await enabled(t, name)).toBe(false);
    }
  });

  it('token-authenticated writes are not checked; reads are not either', async () => {
    const name = await flagOn(t);
    // The admin token (harness default), and a personal access token, each with a foreign Origin.
    expect((await turnOff(t, name, { origin: OTHER_PORT })).statusCode).toBe(200);
    const pat = await t.send(
      'POST',
      '/api/admin/user/tokens',
      { description: 'csrf', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      asUser(cookie),
    );
    expect(pat.statusCode).toBe(201);
    const again = await flagOn(t);
    expect(
      (await turnOff(t, again, { authorization: pat.json().secret, origin: OTHER_PORT })).statusCode,
    ).toBe(200);
    expect(await enabled(t, again)).toBe(false);
    const read = await t.send('GET', '/api/admin/user', undefined, { ...asUser(cookie), origin: OTHER_PORT });
    expect(read.statusCode).toBe(200);
  });

  it('login from another site is refused (no login CSRF), from the service it works', async () => {
    const { username } = await createUser(t);
    const attempt = (origin: string) =>
      t.request({
        method: 'POST',
        url: '/auth/simple/login',
        payload: { username, password: GOOD_PASSWORD },
        headers: { authorization: undefined, host: HOST, origin },
      });
    const foreign = await attempt(OTHER_PORT);
    expectRefused(foreign);
    expect(foreign.cookies.find((c) => c.name === 'flagship-session')).toBeUndefined();
    expect((await attempt(OWN)).statusCode).toBe(200);
  });

  it('GET /logout leaves the session; POST /logout ends it, but not from another site', async () => {
    const mine = await login(t, (await createUser(t)).username);
    const signedIn = async () =>
      (await t.send('GET', '/api/admin/user', undefined, asUser(mine))).statusCode === 200;
    const visit = await t.send('GET', '/logout', undefined, asUser(mine));
    expect(visit.statusCode).toBe(302);
    expect(await signedIn()).toBe(true);
    const foreign = await t.request({
      method: 'POST',
      url: '/logout',
      headers: { ...asUser(mine), host: HOST, origin: OTHER_PORT },
    });
    expectRefused(foreign);
    expect(await signedIn()).toBe(true);
    const out = await t.request({
      method: 'POST',
      url: '/logout',
      headers: { ...asUser(mine), host: HOST, origin: OWN },
    });
    expect(out.statusCode).toBe(302);
    expect(await signedIn()).toBe(false);
  });

  it('X-Forwarded-Host and -Proto are not believed without TRUST_PROXY', async () => {
    const name = await flagOn(t);
    const res = await turnOff(t, name, {
      ...asUser(cookie),
      host: 'internal:4242',
      'x-forwarded-host': 'flags.example.com',
      'x-forwarded-proto': 'https',
      origin: 'https://flags.example.com',
    });
    expectRefused(res);
  });
});

describe('the service origin', () => {
  it('is PUBLIC_URL’s when set, whatever the Host', async () => {
    const t = await startTestApp({ config: { PUBLIC_URL: 'https://flags.example.com/flagship' } });
    try {
      const cookie = await login(t, (await createUser(t, 'Admin')).username);
      const name = await flagOn(t);
      expectRefused(await turnOff(t, name, { ...asUser(cookie), origin: OWN }));
      expectRefused(await turnOff(t, name, { ...asUser(cookie), origin: 'http://flags.example.com' }));
      expect(await enabled(t, name)).toBe(true);
      expect(
        (await turnOff(t, name, { ...asUser(cookie), origin: 'https://flags.example.com' })).statusCode,
      ).toBe(200);
      expect(await enabled(t, name)).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('is the forwarded one behind a trusted proxy (TRUST_PROXY)', async () => {
    const t = await startTestApp({ config: { TRUST_PROXY: 'true' } });
    try {
      const cookie = await login(t, (await createUser(t, 'Admin')).username);
      const name = await flagOn(t);
      const behind = { ...asUser(cookie), host: 'internal:4242', 'x-forwarded-host': 'flags.example.com' };
      const wrong = { 'x-forwarded-proto': 'http', origin: 'https://flags.example.com' };
      expectRefused(await turnOff(t, name, { ...behind, ...wrong }));
      const right = { 'x-forwarded-proto': 'https', origin: 'https://flags.example.com' };
      expect((await turnOff(t, name, { ...behind, ...right })).statusCode).toBe(200);
      expect(await enabled(t, name)).toBe(false);
    } finally {
      await t.close();
    }
  });
});
