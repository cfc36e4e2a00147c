import type { AddressInfo } from 'node:net';
import { OFREPApiUnauthorizedError, OFREPForbiddenError } from '@openfeature/ofrep-core';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { OpenFeature as WebOpenFeature } from '@openfeature/web-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

/**
 * What the official OpenFeature providers make of a non-boolean flag that has no value for a
 * context (off, not enabled, the `disabled` variant) and of a token the OFREP routes refuse, on
 * a listening server: `@openfeature/ofrep-provider` 0.1.3 (single-flag endpoint) and
 * `@openfeature/ofrep-web-provider` 0.4.3 (bulk endpoint). docs/api.md §10d.
 */
let t: TestApp;
let base: string;
let secret = '';
const project = uniqueName('ofrep-prov');
const ENV = 'development';
/** A web application's origin, allowed by CORS. */
const ORIGIN = 'https://app.example';
const F = {
  offString: `${project}-off-string`,
  offNumber: `${project}-off-number`,
  offJson: `${project}-off-json`,
  /** On, string variants, only for plan=pro. */
  targeted: `${project}-targeted`,
  /** On: plan=pro gets a string variant from its strategy; everyone else is enabled without one. */
  noVariant: `${project}-no-variant`,
};

async function call(method: 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}
const flagUrl = (name: string) => `/api/admin/projects/${project}/features/${name}`;
const variant = (name: string, type: string, value: string) => ({
  name,
  weight: 1000,
  weightType: 'variable',
  stickiness: 'default',
  payload: { type, value },
});
const pro = [{ contextName: 'plan', operator: 'IN', values: ['pro'] }];

async function flag(name: string, options: { variants?: object[]; strategies?: object[]; on: boolean }) {
  await call('POST', `/api/admin/projects/${project}/features`, { name });
  for (const strategy of options.strategies ?? [])
    await call('POST', `${flagUrl(name)}/environments/${ENV}/strategies`, strategy);
  if (options.variants) await call('PUT', `${flagUrl(name)}/environments/${ENV}/variants`, options.variants);
  if (options.on) await call('POST', `${flagUrl(name)}/environments/${ENV}/on`);
}

beforeAll(async () => {
  t = await startTestApp({ config: { FRONTEND_CORS_ORIGINS: ORIGIN } });
  await call('POST', '/api/admin/projects', { id: project, name: project });
  await call('POST', '/api/admin/context', { name: 'plan' });
  await flag(F.offString, { variants: [variant('greeting', 'string', 'hello')], on: false });
  await flag(F.offNumber, { variants: [variant('answer', 'number', '42')], on: false });
  await flag(F.offJson, { variants: [variant('blue', 'json', '{"color":"blue"}')], on: false });
  await flag(F.targeted, {
    strategies: [{ name: 'default', constraints: pro }],
    variants: [variant('greeting', 'string', 'hello')],
    on: true,
  });
  await flag(F.noVariant, {
    strategies: [
      { name: 'default', constraints: pro, variants: [variant('pro', 'string', 'for pros')] },
      { name: 'default' },
    ],
    on: true,
  });
  const created = await call('POST', '/api/admin/api-tokens', {
    tokenName: uniqueName('ofrep-prov'),
    type: 'client',
    environment: ENV,
    projects: [project],
  });
  secret = created.secret;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await OpenFeature.close();
  await WebOpenFeature.close();
  const closing = t.close();
  t.app.server.closeAllConnections();
  await closing;
});

const FREE = { targetingKey: 'u1', plan: 'free' };

describe('the server provider (single-flag endpoint) on a flag without a value', () => {
  const DOMAIN = 'ofrep-providers-values';
  beforeAll(async () => {
    await OpenFeature.setProviderAndWait(
      DOMAIN,
      new OFREPProvider({ baseUrl: base, headers: { Authorization: secret } }),
    );
  });
  const client = () => OpenFeature.getClient(DOMAIN);

  it('resolves an off string, number or json flag to its empty value with reason DISABLED, not an error', async () => {
    const string = await client().getStringDetails(F.offString, 'fallback', FREE);
    expect(string).toMatchObject({ value: '', reason: 'DISABLED', variant: 'disabled' });
    expect(string.errorCode).toBeUndefined();
    const number = await client().getNumberDetails(F.offNumber, 7, FREE);
    expect(number).toMatchObject({ value: 0, reason: 'DISABLED', variant: 'disabled' });
    expect(number.errorCode).toBeUndefined();
    const object = await client().getObjectDetails(F.offJson, { fallback: true }, FREE);
    expect(object).toMatchObject({ value: {}, reason: 'DISABLED', variant: 'disabled' });
    expect(object.errorCode).toBeUndefined();
  });

  it('resolves a flag that is on but not enabled for the context, or gives no variant, with reason DEFAULT', async () => {
    const notMatching = await client().getStringDetails(F.targeted, 'fallback', FREE);
    expect(notMatching).toMatchObject({
      value: '',
      reason: 'DEFAULT',
      variant: 'disabled',
      flagMetadata: { enabled: false },
    });
    expect(notMatching.errorCode).toBeUndefined();
    const matching = await client().getStringDetails(F.targeted, 'fallback', { ...FREE, plan: 'pro' });
    expect(matching).toMatchObject({ value: 'hello', variant: 'greeting' });

    const enabledWithout = await client().getStringDetails(F.noVariant, 'fallback', FREE);
    expect(enabledWithout).toMatchObject({
      value: '',
      reason: 'DEFAULT',
      variant: 'disabled',
      flagMetadata: { enabled: true },
    });
    expect(enabledWithout.errorCode).toBeUndefined();
    expect(await client().getStringValue(F.noVariant, 'fallback', { ...FREE, plan: 'pro' })).toBe('for pros');
  });

  it('sends the value on the wire; the bulk answer keeps none', async () => {
    const headers = { authorization: secret, 'content-type': 'application/json' };
    const one = await t.request({
      method: 'POST',
      url: `/ofrep/v1/evaluate/flags/${F.offJson}`,
      payload: { context: FREE },
      headers,
    });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ key: F.offJson, value: {}, reason: 'DISABLED' });
    const bulk = await t.request({
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      payload: { context: FREE },
      headers,
    });
    const entry = (bulk.json().flags as { key: string }[]).find((f) => f.key === F.offJson);
    expect(entry).toMatchObject({ reason: 'DISABLED', variant: 'disabled' });
    expect(entry).not.toHaveProperty('value');
  });
});

describe('the web provider (bulk endpoint) on a flag without a value', () => {
  const DOMAIN = 'ofrep-providers-web';
  afterAll(() => WebOpenFeature.clearProviders());

  it("gives the application's default with the reason, not an error", async () => {
    await WebOpenFeature.setContext(DOMAIN, FREE);
    await WebOpenFeature.setProviderAndWait(
      DOMAIN,
      new OFREPWebProvider({ baseUrl: base, headers: [['Authorization', secret]], cacheMode: 'disabled' }),
    );
    const client = WebOpenFeature.getClient(DOMAIN);
    const cases = [
      [client.getStringDetails(F.offString, 'fallback'), 'fallback', 'DISABLED'],
      [client.getNumberDetails(F.offNumber, 7), 7, 'DISABLED'],
      [client.getObjectDetails(F.offJson, { fallback: true }), { fallback: true }, 'DISABLED'],
      [client.getStringDetails(F.targeted, 'fallback'), 'fallback', 'DEFAULT'],
      [client.getStringDetails(F.noVariant, 'fallback'), 'fallback', 'DEFAULT'],
    ] as const;
    for (const [details, value, reason] of cases) {
      expect(details, details.flagKey).toMatchObject({ value, reason });
      expect(details.errorCode, details.flagKey).toBeUndefined();
    }
  });
});

describe('a token the OFREP routes refuse', () => {
  const REFUSED = [
    ['no token', undefined, OFREPApiUnauthorizedError, 401, 'AuthenticationRequired'],
    [
      'an unknown token',
      `${project}:${ENV}.0123456789abcdef`,
      OFREPApiUnauthorizedError,
      401,
      'AuthenticationRequired',
    ],
    ['an admin token', ADMIN_TOKEN, OFREPForbiddenError, 403, 'NoAccessError'],
  ] as const;

  it('answers 401 or 403 with the JSON error body and CORS headers (a browser reads it), on both routes', async () => {
    for (const [label, token, , status, name] of REFUSED) {
      for (const url of [`/ofrep/v1/evaluate/flags/${F.offString}`, '/ofrep/v1/evaluate/flags']) {
        const res = await t.request({
          method: 'POST',
          url,
          payload: { context: {} },
          headers: { authorization: token, 'content-type': 'application/json', origin: ORIGIN },
        });
        expect(res.statusCode, `${label} ${url}`).toBe(status);
        expect(res.headers['access-control-allow-origin'], `${label} ${url}`).toBe(ORIGIN);
        expect(res.json(), `${label} ${url}`).toMatchObject({
          id: expect.any(String),
          name,
          message: expect.any(String),
        });
      }
    }
    const viewer = await createUser(t, 'Viewer');
    const session = await t.request({
      method: 'POST',
      url: '/ofrep/v1/evaluate/flags',
      payload: { context: {} },
      headers: { ...asUser(await login(t, viewer.username)), 'content-type': 'application/json' },
    });
    expect(session.statusCode).toBe(403);
    expect(session.json()).toMatchObject({ name: 'NoAccessError' });
  });

  it("makes the server provider raise its authorization error, with the caller's default", async () => {
    for (const [label, token, kind] of REFUSED) {
      const domain = `ofrep-providers-auth-${label}`;
      await OpenFeature.setProviderAndWait(
        domain,
        new OFREPProvider({ baseUrl: base, headers: token ? { Authorization: token } : {} }),
      );
      const raised: unknown[] = [];
      const client = OpenFeature.getClient(domain);
      client.addHooks({ error: (_context, error) => void raised.push(error) });
      const details = await client.getStringDetails(F.offString, 'fallback', FREE);
      // OpenFeature has no authorization error code: the SDK reports the provider's error as GENERAL.
      expect(details, label).toMatchObject({ value: 'fallback', reason: 'ERROR', errorCode: 'GENERAL' });
      expect(raised, label).toHaveLength(1);
      expect(raised[0], label).toBeInstanceOf(kind);
    }
  });

  it('makes the web provider fail for good (PROVIDER_FATAL)', async () => {
    for (const [label, token] of REFUSED) {
      const domain = `ofrep-providers-web-auth-${label}`;
      await WebOpenFeature.setContext(domain, FREE);
      const provider = new OFREPWebProvider({
        baseUrl: base,
        headers: token ? [['Authorization', token]] : [],
        cacheMode: 'disabled',
      });
      await expect(WebOpenFeature.setProviderAndWait(domain, provider), label).rejects.toMatchObject({
        code: 'PROVIDER_FATAL',
      });
      const details = WebOpenFeature.getClient(domain).getStringDetails(F.offString, 'fallback');
      expect(details, label).toMatchObject({ value: 'fallback', errorCode: 'PROVIDER_FATAL' });
    }
  });
});
