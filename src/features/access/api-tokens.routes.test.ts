import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { hashSecret } from './api-tokens.auth.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const NO_AUTH = { authorization: undefined };
const create = (payload: object, headers = {}) =>
  t.request({ method: 'POST', url: '/api/admin/api-tokens', payload, headers });
const list = (headers = {}) => t.request({ method: 'GET', url: '/api/admin/api-tokens', headers });
const lastEvent = async () => {
  const res = await t.request({ method: 'GET', url: '/api/admin/events' });
  return res.json().events[0] as {
    type: string;
    data: Record<string, unknown>;
    preData: Record<string, unknown>;
  };
};
const sql = (text: string, params: unknown[] = []) => t.database.session((run) => run(text, params));

async function refused(
  request: () => Promise<{ statusCode: number; json: () => { name: string } }>,
  status: number,
  name: string,
) {
  const events = await a.count('events');
  const tokens = await a.count('api_tokens');
  const res = await request();
  expect(res.statusCode).toBe(status);
  expect(res.json().name).toBe(name);
  expect(await a.count('events')).toBe(events);
  expect(await a.count('api_tokens')).toBe(tokens);
  return res;
}

describe('POST /api/admin/api-tokens', () => {
  it('creates a client token: 201, secret once in Unleash format, only the hash stored, event without secret', async () => {
    const tokenName = uniqueName('svc');
    const res = await create({ tokenName, type: 'client', environment: 'production', projects: ['default'] });
    expect(res.statusCode).toBe(201);
    const token = res.json();
    expect(token.secret).toMatch(/^default:production\.[0-9a-f]{56}$/);
    expect(token).toMatchObject({
      tokenName,
      type: 'client',
      environment: 'production',
      project: 'default',
      projects: ['default'],
      expiresAt: null,
      seenAt: null,
      alias: null,
      secure: false,
    });
    expect(Date.parse(token.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await a.count('api_tokens', 'secret_hash = $1', [hashSecret(token.secret)])).toBe(1);
    const stored = await sql('SELECT * FROM api_tokens WHERE secret_hash = $1', [hashSecret(token.secret)]);
    expect(JSON.stringify(stored)).not.toContain(token.secret.split('.')[1]);
    const event = await lastEvent();
    expect(event.type).toBe('api-token-created');
    expect(event.data).toMatchObject({
      tokenName,
      type: 'client',
      environment: 'production',
      projects: ['default'],
    });
    expect(JSON.stringify(event)).not.toContain(token.secret.split('.')[1]);

    const listed = (await list()).json().tokens.find((x: { tokenName: string }) => x.tokenName === tokenName);
    expect(listed.secret).toMatch(/^default:production\.[0-9a-f]{6}…$/);
    expect(listed.secure).toBe(true);
    expect(Object.keys(listed).sort()).toEqual(Object.keys(token).sort());
    const byName = await t.request({ method: 'GET', url: `/api/admin/api-tokens/${tokenName}` });
    expect(byName.json().tokens).toHaveLength(1);
  });

  it('secret prefixes: * for all projects, [] for several, *:* for admin; backend is client; username works', async () => {
    await sql(`INSERT INTO projects (id, name) VALUES ('tok-p2', 'p2') ON CONFLICT DO NOTHING`);
    const all = (await create({ tokenName: uniqueName(), type: 'BACKEND' })).json();
    expect(all.secret).toMatch(/^\*:development\.[0-9a-f]{56}$/);
    expect(all).toMatchObject({ type: 'client', project: '*', projects: ['*'], environment: 'development' });
    const several = (
      await create({ username: uniqueName(), type: 'frontend', projects: ['default', 'tok-p2'] })
    ).json();
    expect(several.secret).toMatch(/^\[\]:development\.[0-9a-f]{56}$/);
    expect(several).toMatchObject({ type: 'frontend', project: '[]', projects: ['default', 'tok-p2'] });
    const single = (await create({ tokenName: uniqueName(), type: 'client', project: 'tok-p2' })).json();
    expect(single.projects).toEqual(['tok-p2']);
    const admin = await create({ tokenName: uniqueName(), type: 'admin' });
    expect(admin.statusCode).toBe(201);
    expect(admin.json().secret).toMatch(/^\*:\*\.[0-9a-f]{56}$/);
    expect(admin.json()).toMatchObject({ environment: '*', projects: ['*'] });
  });

  it('created tokens authenticate: admin on admin routes, client on client routes; client on admin is 403', async () => {
    const admin = (await create({ tokenName: uniqueName(), type: 'admin' })).json().secret;
    const client = (
      await create({ tokenName: uniqueName(), type: 'client', environment: 'development' })
    ).json().secret;
    const asAdmin = await t.request({
      method: 'GET',
      url: '/api/admin/api-tokens',
      headers: { authorization: admin },
    });
    expect(asAdmin.statusCode).toBe(200);
    const clientOnAdmin = await t.request({
      method: 'GET',
      url: '/api/admin/api-tokens',
      headers: { authorization: client },
    });
    expect(clientOnAdmin.statusCode).toBe(403);
    const clientOnClient = await t.request({
      method: 'GET',
      url: '/api/client/features',
      headers: { authorization: client },
    });
    expect(clientOnClient.statusCode).toBe(200);
  });

  it('400: bad type, no name, * environment for client, admin with scope, * mixed, past expiry', async () => {
    await refused(() => create({ tokenName: 'x', type: 'superuser' }), 400, 'ValidationError');
    const noName = await refused(() => create({ type: 'client' }), 400, 'ValidationError');
    expect(noName.json()).toMatchObject({ details: [{ path: '/body/tokenName' }] });
    await refused(() => create({ tokenName: 'x', type: 'client', environment: '*' }), 400, 'ValidationError');
    await refused(
      () => create({ tokenName: 'x', type: 'admin', environment: 'development' }),
      400,
      'ValidationError',
    );
    await refused(
      () => create({ tokenName: 'x', type: 'admin', projects: ['default'] }),
      400,
      'ValidationError',
    );
    await refused(
      () => create({ tokenName: 'x', type: 'client', projects: ['*', 'default'] }),
      400,
      'ValidationError',
    );
    await refused(
      () => create({ tokenName: 'x', type: 'client', expiresAt: '2000-01-01T00:00:00.000Z' }),
      400,
      'ValidationError',
    );
  });

  it('404: unknown environment or project; 401 without a token', async () => {
    await refused(
      () => create({ tokenName: 'x', type: 'client', environment: 'nope' }),
      404,
      'NotFoundError',
    );
    await refused(
      () => create({ tokenName: 'x', type: 'client', projects: ['default', 'nope'] }),
      404,
      'NotFoundError',
    );
    await refused(() => create({ tokenName: 'x', type: 'client' }, NO_AUTH), 401, 'AuthenticationRequired');
    expect((await list(NO_AUTH)).statusCode).toBe(401);
  });
});

describe('PUT and DELETE /api/admin/api-tokens/:token', () => {
  it('PUT sets the expiry with api-token-updated; an expired token stops working', async () => {
    const secret = (await create({ tokenName: uniqueName(), type: 'admin' })).json().secret;
    const past = new Date(Date.now() - 1000).toISOString();
    const url = `/api/admin/api-tokens/${encodeURIComponent(secret)}`;
    const res = await t.request({ method: 'PUT', url, payload: { expiresAt: past } });
    expect(res.statusCode).toBe(200);
    const event = await lastEvent();
    expect(event.type).toBe('api-token-updated');
    expect(event.data).toMatchObject({ expiresAt: past });
    expect(event.preData).toMatchObject({ expiresAt: null });
    const used = await t.request({
      method: 'GET',
      url: '/api/admin/api-tokens',
      headers: { authorization: secret },
    });
    expect(used.statusCode).toBe(401);
    const bad = await t.request({ method: 'PUT', url, payload: { expiresAt: 'tomorrow' } });
    expect(bad.statusCode).toBe(400);
  });

  it('DELETE removes the token, records api-token-deleted, and it stops working at once', async () => {
    const tokenName = uniqueName();
    const secret = (await create({ tokenName, type: 'admin' })).json().secret;
    const use = () =>
      t.request({ method: 'GET', url: '/api/admin/api-tokens', headers: { authorization: secret } });
    expect((await use()).statusCode).toBe(200);
    const res = await t.request({
      method: 'DELETE',
      url: `/api/admin/api-tokens/${encodeURIComponent(secret)}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(await a.count('api_tokens', 'token_name = $1', [tokenName])).toBe(0);
    const event = await lastEvent();
    expect(event).toMatchObject({ type: 'api-token-deleted', preData: { tokenName, type: 'admin' } });
    expect((await use()).statusCode).toBe(401);
  });

  it('unknown token: 200 and nothing changes; 401 without a token', async () => {
    const events = await a.count('events');
    const res = await t.request({ method: 'DELETE', url: '/api/admin/api-tokens/default:development.nope' });
    expect(res.statusCode).toBe(200);
    expect(await a.count('events')).toBe(events);
    const anon = await t.request({ method: 'DELETE', url: '/api/admin/api-tokens/x', headers: NO_AUTH });
    expect(anon.statusCode).toBe(401);
  });
});
