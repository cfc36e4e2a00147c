import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.js';
import { createUser, GOOD_PASSWORD } from './people.js';

// Issue 43, finding 6: failed logins count per normalised account, per client address, with a
// slower ceiling per account over all addresses.
const WRONG = 'Wrong-Password-1';

describe('login throttling', () => {
  let t: TestApp;
  let clock = Date.parse('2026-12-01T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp({
      now: () => new Date(clock),
      config: { LOGIN_RATE_LIMIT: 10, LOGIN_ACCOUNT_FAILURE_LIMIT: 30, LOGIN_ADDRESS_RATE_LIMIT: 1000 },
    });
  });
  afterAll(() => t.close());

  const attempt = (username: string, password: string, remoteAddress: string) =>
    t.request({
      method: 'POST',
      url: '/auth/simple/login',
      payload: { username, password },
      headers: { authorization: undefined },
      remoteAddress,
    });
  /** A user with an email, and the ways a login may name it. */
  const victim = async () => {
    const email = `v-${Math.random().toString(36).slice(2)}@example.com`;
    const { username } = await createUser(t, 'Viewer', { email });
    return {
      username,
      names: [` ${username}`, `${username} `, username.toUpperCase(), email, ` ${email.toUpperCase()}`],
    };
  };

  it('one address has one budget per account, however the name is written; other addresses still sign in', async () => {
    const { username, names } = await victim();
    const statuses = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await attempt(names[i % names.length]!, WRONG, '10.0.0.1')).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    // The right password, under any of the names, from that address: refused until the minute ends.
    for (const name of names) {
      const refused = await attempt(name, GOOD_PASSWORD, '10.0.0.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ name: 'RateLimitError' });
      expect(typeof refused.json().id).toBe('string');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    // The real user elsewhere is not locked out, and the address may still try other accounts.
    expect((await attempt(username, GOOD_PASSWORD, '10.0.0.2')).statusCode).toBe(200);
    const other = await victim();
    expect((await attempt(other.username, WRONG, '10.0.0.1')).statusCode).toBe(401);
    clock += 61_000;
    expect((await attempt(username, GOOD_PASSWORD, '10.0.0.1')).statusCode).toBe(200);
  });

  it('a success starts the address’s count again', async () => {
    const { username, names } = await victim();
    for (let i = 0; i < 9; i++)
      expect((await attempt(names[i % names.length]!, WRONG, '10.0.1.1')).statusCode).toBe(401);
    expect((await attempt(names[0]!, GOOD_PASSWORD, '10.0.1.1')).statusCode).toBe(200);
    for (let i = 0; i < 9; i++) expect((await attempt(username, WRONG, '10.0.1.1')).statusCode).toBe(401);
    expect((await attempt(username, GOOD_PASSWORD, '10.0.1.1')).statusCode).toBe(200);
  });

  it('failures spread over many addresses reach the account ceiling, which blocks every address', async () => {
    const { username, names } = await victim();
    for (let i = 0; i < 30; i++)
      expect((await attempt(names[i % names.length]!, WRONG, `10.0.2.${i + 1}`)).statusCode).toBe(401);
    const blocked = await attempt(username, GOOD_PASSWORD, '10.0.3.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ name: 'RateLimitError' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    // Unknown names have budgets too (nothing tells them apart from users), per normalised name.
    for (let i = 0; i < 10; i++)
      expect((await attempt(' Nobody-Here ', WRONG, '10.0.4.1')).statusCode).toBe(401);
    expect((await attempt('nobody-here', WRONG, '10.0.4.1')).statusCode).toBe(429);
    clock += 15 * 60_000;
    expect((await attempt(username, GOOD_PASSWORD, '10.0.3.1')).statusCode).toBe(200);
  });
});

describe('login requests per address', () => {
  it('429 with Retry-After once one address sends too many, whatever the accounts', async () => {
    const limited = await startTestApp({ config: { LOGIN_ADDRESS_RATE_LIMIT: 3 } });
    try {
      const attempt = (username: string, remoteAddress: string) =>
        limited.request({
          method: 'POST',
          url: '/auth/simple/login',
          payload: { username, password: WRONG },
          headers: { authorization: undefined },
          remoteAddress,
        });
      const fromOne = [];
      for (const name of ['a1', 'a2', 'a3', 'a4']) fromOne.push((await attempt(name, '10.0.0.1')).statusCode);
      expect(fromOne).toEqual([401, 401, 401, 429]);
      const res = await attempt('a5', '10.0.0.1');
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.json()).toMatchObject({ name: 'RateLimitError' });
      expect((await attempt('a1', '10.0.0.2')).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});
