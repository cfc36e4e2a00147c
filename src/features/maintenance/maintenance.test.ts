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

const toggle = (enabled: boolean, headers = {}) =>
  t.send('POST', '/api/admin/maintenance', { enabled }, headers);
/** Runs `fn` with maintenance mode on, and turns it off again whatever happens. */
const inMaintenance = async (fn: () => Promise<void>) => {
  expect((await toggle(true)).statusCode).toBe(204);
  try {
    await fn();
  } finally {
    await toggle(false);
  }
};

describe('maintenance mode', () => {
  it('refuses configuration writes with 503 while on; reads, evaluation and SDKs keep working', async () => {
    const flag = uniqueName('mm');
    await a.createFlag('default', { name: flag });
    const token = (
      await t.send('POST', '/api/admin/api-tokens', {
        tokenName: uniqueName('sdk'),
        type: 'client',
        environment: 'development',
        projects: ['*'],
      })
    ).json().secret;
    expect((await t.send('GET', '/api/admin/maintenance')).json()).toEqual({ enabled: false });

    await inMaintenance(async () => {
      expect((await t.send('GET', '/api/admin/maintenance')).json()).toEqual({ enabled: true });
      expect(await a.lastEvent('maintenance-mode-toggled')).toMatchObject({ data: { enabled: true } });
      const refused = await t.send('POST', '/api/admin/projects/default/features', {
        name: uniqueName('no'),
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ name: 'ServiceUnavailableError' });
      expect(refused.json().message).toContain('maintenance mode');
      const put = await t.send('PUT', `/api/admin/projects/default/features/${flag}`, { description: 'x' });
      expect(put.statusCode).toBe(503);
      expect((await t.send('DELETE', `/api/admin/projects/default/features/${flag}`)).statusCode).toBe(503);
      const read = await a.getFlag('default', flag);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ description: null, archived: false });
      const playground = await t.send('POST', '/api/admin/playground', {
        environment: 'development',
        context: { appName: 'maintenance-test' },
      });
      expect(playground.statusCode).toBe(200);
      expect(
        (await t.send('POST', '/api/admin/features/validate', { name: uniqueName('free') })).statusCode,
      ).toBe(200);
      const sdk = await t.send('GET', '/api/client/features', undefined, { authorization: token });
      expect(sdk.statusCode).toBe(200);
      expect(sdk.json().features.some((f: { name: string }) => f.name === flag)).toBe(true);
      // On twice records once.
      await toggle(true);
    });
    expect(
      (await t.send('POST', '/api/admin/projects/default/features', { name: uniqueName('yes') })).statusCode,
    ).toBe(200);
    const toggles = await t.database.session((run) =>
      run(`SELECT count(*)::int AS n FROM events WHERE type = 'maintenance-mode-toggled'`),
    );
    expect(toggles[0]).toEqual({ n: 2 });
  });

  it('refuses every way of creating and changing a flag, which check it themselves, and writes nothing', async () => {
    // Creating a flag and changing its metadata check the mode in their own statement or
    // transaction, not in the guard: each of their paths answers 503 and leaves no trace.
    const flag = uniqueName('mm-paths');
    await a.createFlag('default', { name: flag });
    const url = `/api/admin/projects/default/features/${flag}`;
    // An enabled strategy in development (turning it on is then one statement), none in production
    // (turning it on there would add the default strategy).
    expect(
      (await t.send('POST', `${url}/environments/development/strategies`, { name: 'default' })).statusCode,
    ).toBe(200);
    const etag = (await a.getFlag('default', flag)).headers.etag as string;
    const before = await a.flagEvents(flag);
    const names = [uniqueName('plain'), uniqueName('tagged')];
    await inMaintenance(async () => {
      const attempts = [
        t.send('POST', '/api/admin/projects/default/features', { name: names[0] }),
        t.send('POST', '/api/admin/projects/default/features', {
          name: names[1],
          tags: [{ type: 'simple', value: 'mm' }],
        }),
        t.send('PUT', url, { description: 'fast path' }),
        t.send('PUT', url, { description: 'with If-Match' }, { 'if-match': etag }),
        t.send('PUT', url, { archived: true }),
        t.send('PATCH', url, [{ op: 'replace', path: '/description', value: 'patched' }]),
        t.send('PUT', '/api/admin/projects/default/features/no-such-flag-mm', { description: 'x' }),
        t.send('POST', `${url}/environments/development/on`),
        t.send('POST', `${url}/environments/production/on`),
        t.send('POST', `${url}/environments/development/off`),
        t.send('POST', '/api/admin/projects/default/features/no-such-flag-mm/environments/development/on'),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json().name).toBe('ServiceUnavailableError');
      }
    });
    const after = (await a.getFlag('default', flag)).json();
    expect(after).toMatchObject({ description: null, archived: false });
    expect(
      after.environments.map((e: { enabled: boolean; strategies: unknown[] }) => [
        e.enabled,
        e.strategies.length,
      ]),
    ).toEqual([
      [false, 1],
      [false, 0],
    ]);
    expect(await a.flagEvents(flag)).toEqual(before);
    for (const name of names) expect((await a.getFlag('default', name)).statusCode).toBe(404);
    expect((await t.send('PUT', url, { description: 'after' })).statusCode).toBe(200);
  });

  it('decides by the route, not by what a path parameter says: a flag named "validate" is not a check', async () => {
    // POST …/validate routes only read and stay open; a flag whose name makes a write's path end
    // the same way is still a write.
    const flag = 'validate';
    await a.createFlag('default', { name: flag });
    await inMaintenance(async () => {
      const res = await t.send('DELETE', `/api/admin/projects/default/features/${flag}`);
      expect(res.statusCode, res.body).toBe(503);
    });
    expect((await a.getFlag('default', flag)).json()).toMatchObject({ archived: false });
  });

  it('is documented: the OpenAPI document lists the 503 of the writes it refuses, and only theirs', async () => {
    const paths = (await t.send('GET', '/docs/openapi.json')).json().paths;
    const responses = (path: string, method: string) => Object.keys(paths[path][method].responses);
    const flag = '/api/admin/projects/{projectId}/features/{featureName}';
    // Refused above, by the guard or by the write itself.
    for (const [path, method] of [
      ['/api/admin/projects/{projectId}/features', 'post'],
      [flag, 'put'],
      [flag, 'patch'],
      [flag, 'delete'],
    ] as const) {
      expect(responses(path, method), `${method} ${path}`).toContain('503');
    }
    // Working in maintenance mode: reads, evaluation, checks, the toggle itself.
    for (const [path, method] of [
      [flag, 'get'],
      ['/api/admin/playground', 'post'],
      ['/api/admin/features/validate', 'post'],
      ['/api/admin/maintenance', 'post'],
    ] as const) {
      expect(responses(path, method), `${method} ${path}`).not.toContain('503');
    }
  });

  it('lets only admins toggle it, and checks permissions before maintenance', async () => {
    const editor = await createUser(t, 'Editor');
    const viewer = await createUser(t, 'Viewer');
    const editorCookie = await login(t, editor.username);
    const viewerCookie = await login(t, viewer.username);
    expect((await toggle(true, asUser(editorCookie))).statusCode).toBe(403);
    await inMaintenance(async () => {
      const res = await t.send(
        'POST',
        '/api/admin/projects/default/features',
        { name: uniqueName('v') },
        asUser(viewerCookie),
      );
      expect(res.statusCode).toBe(403);
    });
  });
});
