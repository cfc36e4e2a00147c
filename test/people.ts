import type { TestApp } from './harness.js';
import { uniqueName } from './harness.js';

/** A password that passes the password rules. */
export const GOOD_PASSWORD = 'Correct-Horse-7-Battery';

/** Creates a user through the admin API (admin token) and returns its id and username. */
export async function createUser(
  t: TestApp,
  rootRole: 'Admin' | 'Editor' | 'Viewer' | number = 'Viewer',
  extra: Record<string, unknown> = {},
): Promise<{ id: number; username: string }> {
  const username = uniqueName('user');
  const res = await t.send('POST', '/api/admin/user-admin', {
    username,
    password: GOOD_PASSWORD,
    rootRole,
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`createUser ${res.statusCode}: ${res.body}`);
  return { id: res.json().id, username };
}

/** Signs in and returns the session cookie as a Cookie header value. */
export async function login(t: TestApp, username: string, password = GOOD_PASSWORD): Promise<string> {
  const res = await t.send(
    'POST',
    '/auth/simple/login',
    { username, password },
    { authorization: undefined },
  );
  if (res.statusCode !== 200) throw new Error(`login ${res.statusCode}: ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'flagship-session');
  if (!cookie) throw new Error('login set no session cookie');
  return `${cookie.name}=${cookie.value}`;
}

/** Headers that act as the signed-in user (no API token). */
export const asUser = (cookie: string) => ({ authorization: undefined, cookie });
