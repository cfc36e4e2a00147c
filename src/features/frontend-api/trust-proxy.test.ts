import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

const CLIENT = '203.0.113.7';
const flag = uniqueName('address-flag');

let behindProxy: TestApp;
let direct: TestApp;
let frontendToken: string;
let directToken: string;

/** A flag on for the client address only (the `remoteAddress` strategy), on one app. */
async function seed(t: TestApp) {
  const admin = async (url: string, body?: unknown) => {
    const res = await t.send('POST', url, body);
    expect(res.statusCode, res.body).toBeLessThan(300);
  };
  const flags = '/api/admin/projects/default/features';
  await admin(flags, { name: flag });
  await admin(`${flags}/${flag}/environments/development/strategies`, {
    name: 'remoteAddress',
    parameters: { IPs: CLIENT },
  });
  await admin(`${flags}/${flag}/environments/development/on`);
  return configSql(t).addToken('frontend', ['default'], 'development');
}

beforeAll(async () => {
  behindProxy = await startTestApp({ config: { TRUST_PROXY: 'true' } });
  direct = await startTestApp();
  frontendToken = await seed(behindProxy);
  directToken = await seed(direct);
});
afterAll(async () => {
  await behindProxy.close();
  await direct.close();
});

const enabledFor = async (t: TestApp, token: string, headers: Record<string, string> = {}) => {
  const res = await t.request({
    method: 'GET',
    url: '/api/frontend',
    headers: { authorization: token, ...headers },
  });
  expect(res.statusCode).toBe(200);
  return res.json().toggles.some((f: { name: string }) => f.name === flag);
};

describe('TRUST_PROXY', () => {
  it("makes X-Forwarded-For's client the frontend API context's remoteAddress", async () => {
    expect(await enabledFor(behindProxy, frontendToken, { 'x-forwarded-for': `${CLIENT}, 10.0.0.1` })).toBe(
      true,
    );
    expect(await enabledFor(behindProxy, frontendToken, { 'x-forwarded-for': '198.51.100.1' })).toBe(false);
    // Without the header the socket's address still counts.
    expect(await enabledFor(behindProxy, frontendToken)).toBe(false);
  });

  it('is off by default: a forwarded address is not believed', async () => {
    expect(await enabledFor(direct, directToken, { 'x-forwarded-for': CLIENT })).toBe(false);
  });

  it('records the forwarded address of a registering SDK', async () => {
    const appName = uniqueName('proxied-app');
    const register = (t: TestApp, token: string) =>
      t.request({
        method: 'POST',
        url: '/api/frontend/client/register',
        headers: { authorization: token, 'x-forwarded-for': CLIENT },
        payload: {
          appName,
          instanceId: 'browser-1',
          sdkVersion: 'unleash-client-js:3.7.5',
          interval: 15000,
          started: new Date().toISOString(),
          strategies: [],
        },
      });
    const clientIp = async (t: TestApp) =>
      (await t.send('GET', `/api/admin/metrics/instances/${appName}/environment/development`)).json()
        .instances[0].clientIp;
    expect((await register(behindProxy, frontendToken)).statusCode).toBe(200);
    expect(await clientIp(behindProxy)).toBe(CLIENT);
    expect((await register(direct, directToken)).statusCode).toBe(200);
    expect(await clientIp(direct)).toBe('127.0.0.1');
  });
});
