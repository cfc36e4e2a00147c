import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { buildApp } from '../../app.js';
import { testConfig } from '../../config.js';

const DEFAULT_ORIGIN = 'https://default.example';
const config = { FRONTEND_CORS_ORIGINS: DEFAULT_ORIGIN };

let t: TestApp;
/** A second instance of the service on the same database. */
let other: FastifyInstance;
let frontendToken: string;
let clientToken: string;
beforeAll(async () => {
  t = await startTestApp({ config });
  other = await buildApp({ database: t.database, config: testConfig(config), now: () => new Date() });
  await other.ready();
  const sql = configSql(t);
  frontendToken = await sql.addToken('frontend', ['default'], 'development');
  clientToken = await sql.addToken('client', ['default'], 'development');
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const setCors = (body: unknown, headers: Record<string, string | undefined> = {}) =>
  t.send('POST', '/api/admin/ui-config/cors', body, headers);
const uiOrigins = async () => (await t.send('GET', '/api/admin/ui-config')).json().frontendApiOrigins;
/** The origin a frontend answer allows and whether with credentials, as a browser on `origin` sees it. */
const allowed = async (origin: string, app: FastifyInstance = t.app) => {
  const res = await app.inject({
    method: 'GET',
    url: '/api/frontend',
    headers: { authorization: frontendToken, origin },
  });
  expect(res.statusCode).toBe(200);
  const allowedOrigin = res.headers['access-control-allow-origin'];
  // Without an allowed origin a browser reads nothing, whatever else the answer carries.
  return allowedOrigin === undefined
    ? [undefined, undefined]
    : [allowedOrigin, res.headers['access-control-allow-credentials']];
};
const preflightAllows = async (origin: string) => {
  const res = await t.request({
    method: 'OPTIONS',
    url: '/api/frontend',
    headers: { authorization: undefined, origin, 'access-control-request-method': 'GET' },
  });
  return res.headers['access-control-allow-origin'];
};
const settingEvents = async () =>
  (await t.send('GET', '/api/admin/events'))
    .json()
    .events.filter((e: { type: string }) => e.type.startsWith('setting-'));

describe('POST /api/admin/ui-config/cors', () => {
  it('starts from FRONTEND_CORS_ORIGINS', async () => {
    expect(await uiOrigins()).toEqual([DEFAULT_ORIGIN]);
    expect(await allowed(DEFAULT_ORIGIN)).toEqual([DEFAULT_ORIGIN, 'true']);
    expect(await allowed('https://app.example.com')).toEqual([undefined, undefined]);
  });

  it('refuses origins that are not * or scheme://host[:port], and callers without the admin permission', async () => {
    for (const origin of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'ftp://files.example',
      'app',
    ]) {
      const res = await setCors({ frontendApiOrigins: [origin] });
      expect(res.statusCode, origin).toBe(400);
      expect(res.json()).toMatchObject({ name: 'ValidationError', message: `Invalid origin: ${origin}` });
    }
    expect((await setCors({ frontendApiOrigins: ['*'] }, { authorization: clientToken })).statusCode).toBe(
      403,
    );
    expect(await uiOrigins()).toEqual([DEFAULT_ORIGIN]);
  });

  it('replaces the origins at once on this instance, records the setting event, and ui-config reports them', async () => {
    const res = await setCors({ frontendApiOrigins: ['https://app.example.com', 'http://localhost:3000'] });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await uiOrigins()).toEqual(['https://app.example.com', 'http://localhost:3000']);
    expect(await allowed('https://app.example.com')).toEqual(['https://app.example.com', 'true']);
    expect(await allowed('http://localhost:3000')).toEqual(['http://localhost:3000', 'true']);
    expect(await allowed(DEFAULT_ORIGIN)).toEqual([undefined, undefined]);
    expect(await preflightAllows('https://app.example.com')).toBe('https://app.example.com');
    expect(await preflightAllows(DEFAULT_ORIGIN)).toBeUndefined();
    expect(await settingEvents()).toEqual([
      expect.objectContaining({
        type: 'setting-created',
        data: {
          id: 'unleash.frontend',
          frontendApiOrigins: ['https://app.example.com', 'http://localhost:3000'],
        },
      }),
    ]);
  });

  it('reaches another instance through its configuration cache', async () => {
    expect((await setCors({ frontendApiOrigins: ['https://other.example'] })).statusCode).toBe(204);
    await expect
      .poll(() => allowed('https://other.example', other), { timeout: 5000, interval: 100 })
      .toEqual(['https://other.example', 'true']);
    expect(await allowed('https://app.example.com', other)).toEqual([undefined, undefined]);
    const [updated] = await settingEvents();
    expect(updated).toMatchObject({
      type: 'setting-updated',
      data: { id: 'unleash.frontend', frontendApiOrigins: ['https://other.example'] },
      preData: {
        id: 'unleash.frontend',
        frontendApiOrigins: ['https://app.example.com', 'http://localhost:3000'],
      },
    });
  });

  it('allows any origin, without credentials, for *; an empty list allows none; no list keeps', async () => {
    expect((await setCors({ frontendApiOrigins: ['*', 'https://app.example.com'] })).statusCode).toBe(204);
    expect(await uiOrigins()).toEqual(['*']);
    expect(await allowed('https://anything.example')).toEqual(['*', undefined]);
    expect((await setCors({})).statusCode).toBe(204);
    expect(await uiOrigins()).toEqual(['*']);
    expect((await setCors({ frontendApiOrigins: [] })).statusCode).toBe(204);
    expect(await uiOrigins()).toEqual([]);
    expect(await allowed('https://anything.example')).toEqual([undefined, undefined]);
  });
});
