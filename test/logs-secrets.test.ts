import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStore, killAll, type Service, type Store, startService } from './process.js';

/**
 * A realistic session against a listening service that logs every request (LOG_LEVEL=debug):
 * tokens, passwords, sessions, reset and invite links go in and out in every way the API allows
 * (headers, cookies, bodies, paths, query strings). Then everything the process printed is
 * searched for each of them: none may appear.
 */
describe('secrets and passwords never reach the log', () => {
  let store: Store;
  let service: Service;
  /** Every secret and password used or returned during the session. */
  const secrets = new Set<string>();
  const keep = (secret: string | undefined | null) => {
    if (!secret) throw new Error('expected a secret');
    secrets.add(secret);
    return secret;
  };
  // No character three times in a row (the password rules refuse that): repeats are squeezed out.
  const password = (tag: string) =>
    keep(
      `Pw-${tag}-${randomBytes(6)
        .toString('hex')
        .replace(/(.)\1+/g, '$1')}-9!`,
    );
  const adminToken = keep(`*:*.${randomBytes(16).toString('hex')}`);
  const adminPassword = password('admin');

  beforeAll(async () => {
    store = await engineStore();
    service = await startService({
      ...store.env,
      LOG_LEVEL: 'debug',
      INIT_ADMIN_API_TOKENS: adminToken,
      INIT_ADMIN_USER: 'admin',
      INIT_ADMIN_PASSWORD: adminPassword,
    });
    // A new embedded database (initdb, migrations) took over 45 s on a loaded two-core CI machine.
  }, 120_000);
  afterAll(async () => {
    await killAll();
    await store?.remove();
  });

  /** fetch with a JSON body and whatever headers (no admin token unless given). */
  const call = async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(service.url + path, {
      method,
      redirect: 'manual',
      headers: {
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (a page, an empty answer)
    }
    return { status: res.status, json, headers: res.headers };
  };
  const admin = { authorization: adminToken };
  const sessionOf = (headers: Headers) => {
    const cookie = headers.getSetCookie().find((c) => c.startsWith('flagship-session='));
    const value = cookie?.split(';')[0]?.split('=')[1];
    return `flagship-session=${keep(value)}`;
  };
  const future = new Date(Date.now() + 7 * 86_400_000).toISOString();

  it('runs the session (every call as expected)', async () => {
    // API tokens of each kind, used the ways SDKs use them.
    const tokens: Record<string, string> = {};
    for (const type of ['client', 'frontend', 'admin']) {
      const res = await call('POST', '/api/admin/api-tokens', {
        headers: admin,
        body: { tokenName: `log-${type}`, type, ...(type === 'admin' ? {} : { environment: 'development' }) },
      });
      expect(res.status, type).toBe(201);
      tokens[type] = keep(res.json.secret as string);
    }
    expect(
      (await call('GET', '/api/client/features', { headers: { authorization: tokens.client! } })).status,
    ).toBe(200);
    expect(
      (await call('GET', '/api/frontend', { headers: { authorization: tokens.frontend! } })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/ofrep/v1/evaluate/flags', { headers: { 'x-api-key': tokens.client! }, body: {} }))
        .status,
    ).toBe(200);
    expect(
      (await call('GET', '/api/admin/projects', { headers: { authorization: `Bearer ${tokens.admin}` } }))
        .status,
    ).toBe(200);
    // A token secret in the path: changed, then deleted.
    const project = await call('POST', '/api/admin/projects/default/api-tokens', {
      headers: admin,
      body: { tokenName: 'log-project', type: 'client', environment: 'development' },
    });
    expect(project.status).toBe(201);
    const projectToken = keep(project.json.secret as string);
    expect(
      (
        await call('PUT', `/api/admin/api-tokens/${encodeURIComponent(projectToken)}`, {
          headers: admin,
          body: { expiresAt: future },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('DELETE', `/api/admin/api-tokens/${encodeURIComponent(projectToken)}`, { headers: admin }))
        .status,
    ).toBe(200);
    // A wrong token is not logged either.
    const wrong = keep(`*:*.${randomBytes(16).toString('hex')}`);
    expect((await call('GET', '/api/admin/projects', { headers: { authorization: wrong } })).status).toBe(
      401,
    );

    // Users with passwords; sign in (and once with a wrong password); sessions in cookies.
    const first = password('user');
    const created = await call('POST', '/api/admin/user-admin', {
      headers: admin,
      body: { username: 'logger', email: 'logger@example.com', password: first, rootRole: 'Admin' },
    });
    expect(created.status).toBe(201);
    const weak = keep('weakpassword');
    expect(
      (
        await call('POST', '/api/admin/user-admin', {
          headers: admin,
          body: { username: 'weak', password: weak },
        })
      ).status,
    ).toBe(400);
    const wrongPassword = password('wrong');
    expect(
      (await call('POST', '/auth/simple/login', { body: { username: 'logger', password: wrongPassword } }))
        .status,
    ).toBe(401);
    const login = await call('POST', '/auth/simple/login', { body: { username: 'logger', password: first } });
    expect(login.status).toBe(200);
    const cookie = sessionOf(login.headers);
    expect((await call('GET', '/api/admin/user', { headers: { cookie } })).status).toBe(200);
    const adminLogin = await call('POST', '/auth/simple/login', {
      body: { username: 'admin', password: adminPassword },
    });
    expect(adminLogin.status).toBe(200);
    const adminCookie = sessionOf(adminLogin.headers);
    expect((await call('GET', '/api/admin/projects', { headers: { cookie: adminCookie } })).status).toBe(200);

    // A personal access token, used; a service account token, used.
    const pat = await call('POST', '/api/admin/user/tokens', {
      headers: { cookie },
      body: { description: 'ci', expiresAt: future },
    });
    expect(pat.status).toBe(201);
    const patSecret = keep(pat.json.secret as string);
    expect((await call('GET', '/api/admin/user', { headers: { authorization: patSecret } })).status).toBe(
      200,
    );
    const account = await call('POST', '/api/admin/service-account', {
      headers: admin,
      body: { username: 'robot', name: 'Robot', rootRole: 'Viewer' },
    });
    expect(account.status).toBe(201);
    const accountToken = await call('POST', `/api/admin/service-account/${account.json.id}/token`, {
      headers: admin,
      body: { description: 'deploy', expiresAt: future },
    });
    expect(accountToken.status).toBe(201);
    const robot = keep(accountToken.json.secret as string);
    expect((await call('GET', '/api/admin/projects', { headers: { authorization: robot } })).status).toBe(
      200,
    );

    // Own password change; then a reset link opened in the browser, checked and used.
    const second = password('changed');
    expect(
      (
        await call('POST', '/api/admin/user/change-password', {
          headers: { cookie },
          body: { password: second },
        })
      ).status,
    ).toBe(200);
    const reset = await call('POST', '/api/admin/user-admin/reset-password', {
      headers: admin,
      body: { id: 'logger' },
    });
    expect(reset.status).toBe(200);
    const link = new URL(reset.json.resetPasswordUrl as string);
    const resetToken = keep(link.searchParams.get('token'));
    expect(
      (await call('GET', `${link.pathname}${link.search}`, { headers: { accept: 'text/html' } })).status,
    ).toBe(200);
    expect((await call('GET', `/auth/reset/validate?token=${encodeURIComponent(resetToken)}`)).status).toBe(
      200,
    );
    const third = password('reset');
    expect(
      (await call('POST', '/auth/reset/password', { body: { token: resetToken, password: third } })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/auth/simple/login', { body: { username: 'logger', password: third } })).status,
    ).toBe(200);

    // An invite link: made, opened, checked, used to sign up with a password.
    const invite = await call('POST', '/api/admin/invite-link/tokens', {
      headers: admin,
      body: { name: 'team', expiresAt: future },
    });
    expect(invite.status).toBe(201);
    const inviteSecret = keep(invite.json.secret as string);
    const inviteUrl = new URL(invite.json.url as string);
    expect(
      (await call('GET', `${inviteUrl.pathname}${inviteUrl.search}`, { headers: { accept: 'text/html' } }))
        .status,
    ).toBe(200);
    expect((await call('GET', `/invite/${encodeURIComponent(inviteSecret)}/validate`)).status).toBe(200);
    expect(
      (
        await call('GET', `/api/admin/invite-link/tokens/${encodeURIComponent(inviteSecret)}`, {
          headers: admin,
        })
      ).status,
    ).toBe(200);
    // Its managers see the secret and the link again: in the list and in a PUT's answer.
    const listed = await call('GET', '/api/admin/invite-link/tokens', { headers: admin });
    expect(JSON.stringify(listed.json)).toContain(inviteSecret);
    const extended = await call('PUT', `/api/admin/invite-link/tokens/${encodeURIComponent(inviteSecret)}`, {
      headers: admin,
      body: { expiresAt: future },
    });
    expect(extended.json.url).toBe(invite.json.url);
    const fourth = password('invited');
    expect(
      (
        await call('POST', `/invite/${encodeURIComponent(inviteSecret)}/signup`, {
          body: { email: 'invited@example.com', password: fourth },
        })
      ).status,
    ).toBe(201);

    // A malformed body holding a password (the parser's error), and signing out.
    expect(
      (
        await fetch(`${service.url}/auth/simple/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: `{"username":"logger","password":"${third}"`,
        })
      ).status,
    ).toBe(400);
    expect((await call('POST', '/logout', { headers: { cookie } })).status).toBe(302);
  }, 60_000);

  it('printed none of them, while it did log the requests', async () => {
    expect(await service.stop()).toBe(0);
    const printed = service.stdout() + service.stderr();
    // The log is really there: requests, with secret URL parts redacted.
    expect(printed).toContain('"msg":"request completed"');
    expect(printed).not.toContain('"msg":"incoming request"');
    expect(printed).toContain('/api/admin/api-tokens/[redacted]');
    expect(printed).toContain('/auth/reset/validate?token=[redacted]');
    expect(printed).toContain('/invite/[redacted]/validate');
    expect(secrets.size).toBeGreaterThanOrEqual(15);
    const leaked = [...secrets].filter(
      (secret) => printed.includes(secret) || printed.includes(encodeURIComponent(secret)),
    );
    expect(leaked).toEqual([]);
    // Nor the random part of a token on its own (the part after `project:environment.`).
    const parts = [...secrets].map((s) => s.split('.').pop() ?? s).filter((p) => p.length >= 16);
    expect(parts.filter((part) => printed.includes(part))).toEqual([]);
  });
});
