import type { AddressInfo } from 'node:net';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature, type EvaluationContext as ServerContext } from '@openfeature/server-sdk';
import { ProviderEvents, OpenFeature as WebOpenFeature } from '@openfeature/web-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

/**
 * OFREP on a listening server, through the real OpenFeature SDKs: the server SDK with
 * `@openfeature/ofrep-provider` (single-flag endpoint) and the web SDK with
 * `@openfeature/ofrep-web-provider` (bulk endpoint; it runs in Node with the global fetch), and at
 * the HTTP level for what the providers do not show (error bodies, 304, token scoping).
 */
let t: TestApp;
let base: string;
const project = uniqueName('ofrep');
const other = uniqueName('ofrep-other');
const ENV = 'development';
const tokens: Record<'client' | 'frontend' | 'otherClient' | 'production', string> = {
  client: '',
  frontend: '',
  otherClient: '',
  production: '',
};

const F = {
  targeted: `${project}-targeted`,
  rollout: `${project}-rollout`,
  users: `${project}-users`,
  off: `${project}-off`,
  json: `${project}-json`,
  string: `${project}-string`,
  number: `${project}-number`,
  names: `${project}-names`,
  badNumber: `${project}-bad-number`,
  elsewhere: `${other}-flag`,
};
const BOOLEAN_FLAGS = [F.targeted, F.rollout, F.users, F.off];

async function call(method: 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}
const flagUrl = (name: string, p = project) => `/api/admin/projects/${p}/features/${name}`;

async function flag(
  name: string,
  options: { strategy?: object; variants?: object[]; on?: boolean; project?: string } = {},
) {
  const p = options.project ?? project;
  await call('POST', `/api/admin/projects/${p}/features`, { name });
  if (options.strategy)
    await call('POST', `${flagUrl(name, p)}/environments/${ENV}/strategies`, options.strategy);
  if (options.variants)
    await call('PUT', `${flagUrl(name, p)}/environments/${ENV}/variants`, options.variants);
  if (options.on ?? true) await call('POST', `${flagUrl(name, p)}/environments/${ENV}/on`);
}

const variant = (name: string, payload?: { type: string; value: string }, weight = 1000) => ({
  name,
  weight,
  weightType: 'variable',
  stickiness: 'default',
  ...(payload ? { payload } : {}),
});

async function token(type: 'client' | 'frontend', projects: string[], environment = ENV) {
  const created = await call('POST', '/api/admin/api-tokens', {
    tokenName: uniqueName('ofrep-token'),
    type,
    environment,
    projects,
  });
  return created.secret as string;
}

beforeAll(async () => {
  t = await startTestApp();
  for (const id of [project, other]) await call('POST', '/api/admin/projects', { id, name: id });
  await call('POST', '/api/admin/context', { name: 'plan' });
  await flag(F.targeted, {
    strategy: {
      name: 'default',
      constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }],
    },
  });
  await flag(F.rollout, {
    strategy: {
      name: 'flexibleRollout',
      // A fixed group id: the same users are in the rollout on every run.
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'ofrep-rollout' },
    },
  });
  await flag(F.users, { strategy: { name: 'userWithId', parameters: { userIds: 'u1,u7' } } });
  await flag(F.off, { on: false });
  await flag(F.json, { variants: [variant('blue', { type: 'json', value: '{"color":"blue","n":1}' })] });
  await flag(F.string, { variants: [variant('greeting', { type: 'string', value: 'hello' })] });
  await flag(F.number, { variants: [variant('answer', { type: 'number', value: '42' })] });
  await flag(F.names, { variants: [variant('left', undefined, 500), variant('right', undefined, 500)] });
  await flag(F.badNumber, { variants: [variant('bad', { type: 'number', value: 'abc' })] });
  await flag(F.elsewhere, { project: other });
  tokens.client = await token('client', [project]);
  tokens.frontend = await token('frontend', [project]);
  tokens.otherClient = await token('client', [other]);
  tokens.production = await token('frontend', [project], 'production');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await OpenFeature.close();
  await WebOpenFeature.close();
  const closing = t.close();
  // A socket an SDK left open (keep-alive, a poll in flight) once held app.close past the hook's
  // 60 s on PostgreSQL under CI load; the tests are over, so every connection may go.
  t.app.server.closeAllConnections();
  await closing;
});

/** What the admin playground says for the OFREP context (targetingKey as userId and property). */
async function playground(context: { targetingKey: string; plan?: string }) {
  const properties = { targetingKey: context.targetingKey, ...(context.plan ? { plan: context.plan } : {}) };
  const res = await t.send('POST', '/api/admin/playground', {
    environment: ENV,
    projects: [project],
    context: { appName: 'ofrep-test', userId: context.targetingKey, environment: ENV, properties },
  });
  expect(res.statusCode, res.body).toBe(200);
  return new Map(
    (res.json().features as { name: string; isEnabled: boolean }[]).map((f) => [f.name, f.isEnabled]),
  );
}

const CONTEXTS = [
  { targetingKey: 'u1', plan: 'pro' },
  { targetingKey: 'u2' },
  { targetingKey: 'u3', plan: 'free' },
  { targetingKey: 'u7', plan: 'pro' },
  { targetingKey: 'u8' },
  { targetingKey: 'u9', plan: 'pro' },
  { targetingKey: 'u10' },
  { targetingKey: 'u11' },
];

const post = (
  url: string,
  payload: unknown,
  secret: string | undefined,
  headers: Record<string, string> = {},
) =>
  t.request({
    method: 'POST',
    url,
    payload: payload as object,
    headers: { authorization: secret, 'content-type': 'application/json', ...headers },
  });

/** Waits until the OFREP answer for a flag (for a pro user) shows an admin change (≤ ~1 s). */
async function untilServed(key: string, value: boolean) {
  await expect
    .poll(
      async () =>
        (
          await post(
            `/ofrep/v1/evaluate/flags/${key}`,
            { context: { targetingKey: 'u1', plan: 'pro' } },
            tokens.client,
          )
        ).json().value,
      { timeout: 3000, interval: 50 },
    )
    .toBe(value);
}

describe('the server SDK with the OFREP provider (single-flag endpoint)', () => {
  beforeAll(async () => {
    await OpenFeature.setProviderAndWait(
      new OFREPProvider({ baseUrl: base, headers: { Authorization: tokens.client } }),
    );
  });
  const client = () => OpenFeature.getClient();

  it('answers boolean flags as the playground does, for several contexts', async () => {
    const seen = new Set<boolean>();
    for (const context of CONTEXTS) {
      const played = await playground(context);
      for (const name of BOOLEAN_FLAGS) {
        const expected = played.get(name);
        expect(expected, name).toBeTypeOf('boolean');
        // The default is the opposite answer: falling back to it cannot pass.
        const details = await client().getBooleanDetails(name, !expected, context as ServerContext);
        expect(details, `${name} ${JSON.stringify(context)}`).toMatchObject({ value: expected });
        expect(details.errorCode).toBeUndefined();
        expect(details.variant).toBe(expected ? 'enabled' : 'disabled');
        seen.add(expected as boolean);
      }
    }
    expect([...seen].sort()).toEqual([false, true]);
  });

  it('gives reasons: DISABLED for an off flag, DEFAULT when not enabled, TARGETING_MATCH and SPLIT', async () => {
    const ctx = { targetingKey: 'u1', plan: 'pro' };
    expect(await client().getBooleanDetails(F.off, true, ctx)).toMatchObject({
      value: false,
      reason: 'DISABLED',
    });
    expect(await client().getBooleanDetails(F.targeted, true, { targetingKey: 'u1' })).toMatchObject({
      value: false,
      reason: 'DEFAULT',
    });
    expect(await client().getBooleanDetails(F.targeted, false, ctx)).toMatchObject({
      value: true,
      reason: 'TARGETING_MATCH',
      flagMetadata: { enabled: true, project, flagType: 'release' },
    });
    // The 50 % rollout: SPLIT for a user it enables, DEFAULT for one it does not.
    const reasons = new Set<string | undefined>();
    for (const context of CONTEXTS) {
      const expected = (await playground(context)).get(F.rollout);
      const details = await client().getBooleanDetails(F.rollout, !expected, context as ServerContext);
      expect(details).toMatchObject({ value: expected, reason: expected ? 'SPLIT' : 'DEFAULT' });
      reasons.add(details.reason);
    }
    expect(reasons.size).toBe(2);
  });

  it('gives a json payload as an object, with the variant name', async () => {
    const details = await client().getObjectDetails(F.json, { fallback: true }, { targetingKey: 'u1' });
    expect(details).toMatchObject({
      value: { color: 'blue', n: 1 },
      variant: 'blue',
      flagMetadata: { payloadType: 'json', enabled: true },
    });
    expect(details.errorCode).toBeUndefined();
  });

  it('gives string and number payloads as a string and a number; variants without payload as their name', async () => {
    expect(await client().getStringDetails(F.string, 'fallback', { targetingKey: 'u1' })).toMatchObject({
      value: 'hello',
      variant: 'greeting',
    });
    expect(await client().getNumberDetails(F.number, -1, { targetingKey: 'u1' })).toMatchObject({
      value: 42,
      variant: 'answer',
    });
    const named = await client().getStringDetails(F.names, 'fallback', { targetingKey: 'u1' });
    expect(['left', 'right']).toContain(named.value);
    expect(named.variant).toBe(named.value);
  });

  it('reports FLAG_NOT_FOUND with the default for an unknown flag and for a flag of another project', async () => {
    for (const name of [`${project}-missing`, F.elsewhere]) {
      const details = await client().getBooleanDetails(name, true, { targetingKey: 'u1' });
      expect(details, name).toMatchObject({ value: true, errorCode: 'FLAG_NOT_FOUND', reason: 'ERROR' });
    }
  });

  it('reports TYPE_MISMATCH with the default when a number is asked of a boolean flag', async () => {
    const details = await client().getNumberDetails(F.targeted, 7, { targetingKey: 'u1', plan: 'pro' });
    expect(details).toMatchObject({ value: 7, errorCode: 'TYPE_MISMATCH' });
    const asBoolean = await client().getBooleanDetails(F.json, false, { targetingKey: 'u1' });
    expect(asBoolean).toMatchObject({ value: false, errorCode: 'TYPE_MISMATCH' });
  });
});

describe('the web SDK with the OFREP web provider (bulk endpoint)', () => {
  const statuses: number[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    statuses.push(res.status);
    return res;
  };

  afterAll(() => WebOpenFeature.close());

  it('answers as the playground does, types payloads, and refetches with If-None-Match: 304, then 200 after a change', async () => {
    const context = { targetingKey: 'u1', plan: 'pro' };
    await WebOpenFeature.setContext(context);
    await WebOpenFeature.setProviderAndWait(
      new OFREPWebProvider({
        baseUrl: base,
        headers: [['Authorization', tokens.frontend]],
        cacheMode: 'disabled',
        pollInterval: 100,
        fetchImplementation: recordingFetch,
      }),
    );
    const client = WebOpenFeature.getClient();
    const played = await playground(context);
    for (const name of BOOLEAN_FLAGS) {
      const expected = played.get(name) as boolean;
      expect(client.getBooleanDetails(name, !expected), name).toMatchObject({ value: expected });
    }
    expect(client.getBooleanValue(F.targeted, false)).toBe(true);
    expect(client.getObjectDetails(F.json, {})).toMatchObject({
      value: { color: 'blue', n: 1 },
      variant: 'blue',
    });
    expect(client.getStringValue(F.string, 'x')).toBe('hello');
    expect(client.getNumberValue(F.number, 0)).toBe(42);
    expect(client.getBooleanDetails(`${project}-missing`, true)).toMatchObject({
      value: true,
      errorCode: 'FLAG_NOT_FOUND',
    });
    expect(client.getNumberDetails(F.targeted, 5)).toMatchObject({ value: 5, errorCode: 'TYPE_MISMATCH' });
    expect(client.getBooleanDetails(F.elsewhere, true)).toMatchObject({ errorCode: 'FLAG_NOT_FOUND' });

    // Polls of an unchanged configuration are 304s.
    await expect.poll(() => statuses.filter((s) => s === 304).length, { timeout: 3000 }).toBeGreaterThan(1);
    expect(statuses.filter((s) => s !== 200 && s !== 304)).toEqual([]);

    const changed = new Promise<void>((resolve) =>
      client.addHandler(ProviderEvents.ConfigurationChanged, () => resolve()),
    );
    await call('POST', `${flagUrl(F.targeted)}/environments/${ENV}/off`);
    await changed;
    expect(client.getBooleanDetails(F.targeted, true)).toMatchObject({ value: false, reason: 'DISABLED' });
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    await call('POST', `${flagUrl(F.targeted)}/environments/${ENV}/on`);
    await untilServed(F.targeted, true);
  });
});

describe('POST /ofrep/v1/evaluate/flags (bulk) over HTTP', () => {
  const BULK = '/ofrep/v1/evaluate/flags';

  it("lists every flag of the token's projects by name, off ones too, with an ETag; 304 for If-None-Match", async () => {
    const res = await post(BULK, { context: { targetingKey: 'u1', plan: 'pro' } }, tokens.client);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json() as { flags: { key: string; value?: unknown; reason: string }[] };
    const keys = body.flags.map((f) => f.key);
    expect(keys).toEqual([...Object.values(F)].filter((k) => k !== F.elsewhere).sort());
    expect(body.flags.find((f) => f.key === F.off)).toMatchObject({ value: false, reason: 'DISABLED' });
    expect(body).toMatchObject({ metadata: { environment: ENV } });
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await post(BULK, { context: { targetingKey: 'u1', plan: 'pro' } }, tokens.client, {
      'if-none-match': etag,
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Another context, another answer: the same ETag does not match.
    const otherContext = await post(BULK, { context: { targetingKey: 'u2', plan: 'pro' } }, tokens.client, {
      'if-none-match': etag,
    });
    expect(otherContext.statusCode).toBe(200);
    expect(otherContext.headers.etag).not.toBe(etag);
  });

  it('gives a new answer after an admin change, and 304 again once it is known', async () => {
    const context = { context: { targetingKey: 'u2' } };
    const before = await post(BULK, context, tokens.frontend);
    const etag = before.headers.etag as string;
    await call('POST', `${flagUrl(F.off)}/environments/${ENV}/on`);
    let after = before;
    await expect
      .poll(
        async () => {
          after = await post(BULK, context, tokens.frontend, { 'if-none-match': etag });
          if (after.statusCode !== 200) return after.statusCode;
          return (after.json().flags as { key: string; value: unknown }[]).find((f) => f.key === F.off)
            ?.value;
        },
        { timeout: 3000, interval: 100 },
      )
      .toBe(true);
    expect(after.headers.etag).not.toBe(etag);
    expect(
      (after.json().flags as { key: string; value: unknown }[]).find((f) => f.key === F.off),
    ).toMatchObject({
      value: true,
      reason: 'STATIC',
    });
    const unchanged = await post(BULK, context, tokens.frontend, {
      'if-none-match': after.headers.etag as string,
    });
    expect(unchanged.statusCode).toBe(304);
    await call('POST', `${flagUrl(F.off)}/environments/${ENV}/off`);
    await untilServed(F.off, false);
  });

  it('answers 400 INVALID_CONTEXT in the OFREP shape for a context that is not an object or a body that is not JSON', async () => {
    const res = await post(BULK, { context: 'nope' }, tokens.client);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ errorCode: 'INVALID_CONTEXT', errorDetails: expect.any(String) });
    const broken = await post(BULK, '{"context":', tokens.client);
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ errorCode: 'INVALID_CONTEXT' });
  });
});

describe('POST /ofrep/v1/evaluate/flags/{key} over HTTP', () => {
  const ONE = (key: string) => `/ofrep/v1/evaluate/flags/${encodeURIComponent(key)}`;

  it('answers 404 FLAG_NOT_FOUND and 400 INVALID_CONTEXT with the key, in the OFREP shape', async () => {
    const missing = await post(ONE(F.elsewhere), { context: {} }, tokens.client);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      key: F.elsewhere,
      errorCode: 'FLAG_NOT_FOUND',
      errorDetails: expect.any(String),
    });
    const invalid = await post(ONE(F.targeted), { context: { targetingKey: 3 } }, tokens.client);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ key: F.targeted, errorCode: 'INVALID_CONTEXT' });
  });

  it('answers 400 PARSE_ERROR for a number payload that is not a number; inline in the bulk answer', async () => {
    const res = await post(ONE(F.badNumber), { context: {} }, tokens.client);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ key: F.badNumber, errorCode: 'PARSE_ERROR' });
    const bulk = await post('/ofrep/v1/evaluate/flags', { context: {} }, tokens.client);
    expect(bulk.json().flags).toContainEqual(
      expect.objectContaining({ key: F.badNumber, errorCode: 'PARSE_ERROR' }),
    );
  });

  it('accepts a missing context and maps other keys to properties', async () => {
    const none = await post(ONE(F.targeted), {}, tokens.client);
    expect(none.json()).toMatchObject({ key: F.targeted, value: false, reason: 'DEFAULT' });
    const withProperty = await post(
      ONE(F.targeted),
      { context: { properties: { plan: 'pro' } } },
      tokens.client,
    );
    expect(withProperty.json()).toMatchObject({ value: true, variant: 'enabled' });
  });

  it('scopes by token: projects and environment; client and frontend tokens, as Authorization, Bearer or X-API-Key', async () => {
    const body = { context: { targetingKey: 'u1', plan: 'pro' } };
    for (const headers of [
      { authorization: tokens.client },
      { authorization: `Bearer ${tokens.frontend}` },
      { authorization: undefined, 'x-api-key': tokens.client },
    ]) {
      const res = await t.request({ method: 'POST', url: ONE(F.targeted), payload: body, headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.json()).toMatchObject({ value: true });
    }
    // The production token: the flag is off there.
    const production = await post(ONE(F.targeted), body, tokens.production);
    expect(production.json()).toMatchObject({ value: false, reason: 'DISABLED' });
    // Another project's token does not see this project's flags.
    expect((await post(ONE(F.targeted), body, tokens.otherClient)).statusCode).toBe(404);
    expect((await post(ONE(F.elsewhere), body, tokens.otherClient)).json()).toMatchObject({ value: true });
  });

  it('answers 401 without a valid token and 403 for an admin token', async () => {
    const body = { context: {} };
    expect((await post(ONE(F.targeted), body, undefined)).statusCode).toBe(401);
    expect((await post(ONE(F.targeted), body, `${tokens.client}x`)).statusCode).toBe(401);
    const bulk = await post('/ofrep/v1/evaluate/flags', body, undefined);
    expect(bulk.statusCode).toBe(401);
    expect(bulk.json()).toMatchObject({ name: 'AuthenticationRequired' });
    const admin = await t.request({ method: 'POST', url: ONE(F.targeted), payload: body });
    expect(admin.statusCode).toBe(403);
  });
});
