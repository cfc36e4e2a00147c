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

const NO_AUTH = { authorization: undefined };

describe('POST /auth/reset/password-email (no mail server)', () => {
  it('200 for a known email, in any letter case, without a credential; nothing stored or recorded', async () => {
    const email = `${uniqueName('mail')}@example.com`;
    await createUser(t, 'Viewer', { email });
    const events = await a.count('events');
    const tokens = await a.count('reset_tokens');
    for (const sent of [email, email.toUpperCase()]) {
      const res = await t.send('POST', '/auth/reset/password-email', { email: sent }, NO_AUTH);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
    }
    expect(await a.count('events')).toBe(events);
    expect(await a.count('reset_tokens')).toBe(tokens);
  });

  it('404 for an unknown email or a username, 400 for a bad body, 415 for text', async () => {
    const user = await createUser(t, 'Viewer');
    const unknown = await t.send(
      'POST',
      '/auth/reset/password-email',
      { email: 'nobody@example.com' },
      NO_AUTH,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().name).toBe('NotFoundError');
    expect(
      (await t.send('POST', '/auth/reset/password-email', { email: user.username }, NO_AUTH)).statusCode,
    ).toBe(404);
    expect((await t.send('POST', '/auth/reset/password-email', {}, NO_AUTH)).statusCode).toBe(400);
    expect(
      (await t.send('POST', '/auth/reset/password-email', { email: 'a@b.c', x: 1 }, NO_AUTH)).statusCode,
    ).toBe(400);
    const text = await t.request({
      method: 'POST',
      url: '/auth/reset/password-email',
      payload: 'a@b.c',
      headers: { ...NO_AUTH, 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
  });
});

describe('DELETE /api/admin/user-admin/scim-users (no SCIM here)', () => {
  it('200 for an Admin and changes nothing; 403 for a Viewer, 401 without credential', async () => {
    const users = await a.count('users');
    const events = await a.count('events');
    const res = await t.send('DELETE', '/api/admin/user-admin/scim-users');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await a.count('users')).toBe(users);
    expect(await a.count('events')).toBe(events);
    const viewer = await createUser(t, 'Viewer');
    const refused = await t.send(
      'DELETE',
      '/api/admin/user-admin/scim-users',
      undefined,
      asUser(await login(t, viewer.username)),
    );
    expect(refused.statusCode).toBe(403);
    expect((await t.send('DELETE', '/api/admin/user-admin/scim-users', undefined, NO_AUTH)).statusCode).toBe(
      401,
    );
  });
});
