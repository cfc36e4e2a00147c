import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { ADMIN_TOKEN, openTwoInstances, uniqueName } from './harness.js';

/**
 * Admin reads are served from memory (src/platform/read-cache.ts); two instances on one database
 * must still read each other's writes at once: a client that writes through one instance and
 * reads through the other sees its write, with no wait. Verification is off here, so a stale
 * entry would be served, not caught.
 */
let closeDatabases: () => Promise<void>;
let a: FastifyInstance;
let b: FastifyInstance;

beforeAll(async () => {
  const { first, second, close } = await openTwoInstances();
  closeDatabases = close;
  const config = testConfig({ READ_CACHE_VERIFY: false });
  a = await buildApp({ database: first, config, now: () => new Date() });
  b = await buildApp({ database: second, config, now: () => new Date() });
  await Promise.all([a.ready(), b.ready()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  await closeDatabases();
});

const call = (app: FastifyInstance, options: InjectOptions) =>
  app.inject({ ...options, headers: { authorization: ADMIN_TOKEN, ...options.headers } });
const get = async (app: FastifyInstance, url: string) => {
  const res = await call(app, { method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('admin reads across two instances', () => {
  it('a flag written through one instance reads back through the other at once', async () => {
    const name = uniqueName('shared');
    const flagUrl = `/api/admin/projects/default/features/${name}`;
    expect((await call(b, { method: 'GET', url: flagUrl })).statusCode).toBe(404);
    await call(a, { method: 'POST', url: '/api/admin/projects/default/features', payload: { name } });
    expect((await get(b, flagUrl)).description).toBe(null);

    for (const description of ['one', 'two', 'three']) {
      // Read through b (kept in memory there), write through a, read through b again.
      await get(b, flagUrl);
      const put = await call(a, { method: 'PUT', url: flagUrl, payload: { description } });
      expect(put.statusCode).toBe(200);
      expect((await get(b, flagUrl)).description).toBe(description);
      const list = await get(b, '/api/admin/projects/default/features');
      expect(list.features.find((f: { name: string }) => f.name === name).description).toBe(description);
      const events = await get(b, `/api/admin/events/${name}`);
      expect(events.events[0].data.description).toBe(description);
      const recent = await get(b, '/api/admin/events');
      expect(recent.events[0].featureName).toBe(name);
    }

    await get(b, '/api/admin/archive/features');
    expect((await call(a, { method: 'DELETE', url: flagUrl })).statusCode).toBe(202);
    const archived = await get(b, '/api/admin/archive/features');
    expect(archived.features.map((f: { name: string }) => f.name)).toContain(name);
    expect((await get(b, flagUrl)).archived).toBe(true);
  });

  it('an SDK reporting metrics through one instance shows as last seen through the other at once', async () => {
    // The token first: its creation is an event, which would move the version by itself.
    const token = await call(a, {
      method: 'POST',
      url: '/api/admin/api-tokens',
      payload: { tokenName: uniqueName('sdk'), type: 'client', environment: 'development', projects: ['*'] },
    });
    expect(token.statusCode, token.body).toBe(201);
    const name = uniqueName('seen');
    await call(a, { method: 'POST', url: '/api/admin/projects/default/features', payload: { name } });
    const flagUrl = `/api/admin/projects/default/features/${name}`;
    const lastSeen = async () =>
      (await get(b, flagUrl)).environments.find((e: { name: string }) => e.name === 'development').lastSeenAt;
    expect(await lastSeen()).toBe(null);

    const start = new Date().toISOString();
    const metrics = await a.inject({
      method: 'POST',
      url: '/api/client/metrics',
      headers: { authorization: token.json().secret },
      payload: {
        appName: 'web',
        instanceId: 'i1',
        bucket: { start, stop: start, toggles: { [name]: { yes: 1, no: 0 } } },
      },
    });
    expect(metrics.statusCode).toBe(202);
    expect(await lastSeen()).not.toBe(null);
  });

  it('concurrent reads through one instance all see a write acknowledged before they started', async () => {
    const name = uniqueName('burst');
    await call(a, { method: 'POST', url: '/api/admin/projects/default/features', payload: { name } });
    const flagUrl = `/api/admin/projects/default/features/${name}`;
    for (let round = 0; round < 5; round++) {
      const description = `round ${round}`;
      // Reads in flight on b while the write lands; the ones started after it must show it.
      const before = Array.from({ length: 10 }, () => get(b, flagUrl));
      await call(a, { method: 'PUT', url: flagUrl, payload: { description } });
      const after = await Promise.all(Array.from({ length: 20 }, () => get(b, flagUrl)));
      await Promise.all(before);
      expect(after.map((f) => f.description)).toEqual(after.map(() => description));
    }
  });

  it('a session made through one instance works through the other; role changes and sign-outs apply on both at once', async () => {
    const username = uniqueName('shared-user');
    const created = await call(a, {
      method: 'POST',
      url: '/api/admin/user-admin',
      payload: { username, password: 'Correct-Horse-7-Battery', rootRole: 'Viewer' },
    });
    expect(created.statusCode).toBe(201);
    const signIn = await a.inject({
      method: 'POST',
      url: '/auth/simple/login',
      payload: { username, password: 'Correct-Horse-7-Battery' },
    });
    const session = signIn.cookies.find((c) => c.name === 'flagship-session');
    const cookie = `flagship-session=${session?.value}`;
    const create = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/api/admin/projects/default/features',
        headers: { cookie },
        payload: { name: uniqueName('by-session') },
      });
    expect((await create(b)).statusCode).toBe(403); // a Viewer, read through b (and kept there)
    const promote = await call(a, {
      method: 'PUT',
      url: `/api/admin/user-admin/${created.json().id}`,
      payload: { rootRole: 'Editor' },
    });
    expect(promote.statusCode).toBe(200);
    expect((await create(b)).statusCode).toBe(200);
    await a.inject({ method: 'POST', url: '/logout', headers: { cookie } });
    expect((await b.inject({ method: 'GET', url: '/api/admin/user', headers: { cookie } })).statusCode).toBe(
      401,
    );
  });
});
