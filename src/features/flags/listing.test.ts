import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const NO_AUTH = { authorization: undefined };
const _sql = (text: string, params: unknown[] = []) => t.database.session((run) => run(text, params));
const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = {}) =>
  t.request({ method, url, ...(payload && { payload }), headers });
const flagUrl = (name: string, project = 'default') => `/api/admin/projects/${project}/features/${name}`;
const _eventTypes = async (name: string) => (await a.flagEvents(name)).events.map((e) => e.type);
const newFlag = async (body: Record<string, unknown> = {}) => {
  const name = uniqueName();
  await a.createFlag('default', { name, ...body });
  return name;
};

describe('GET /api/admin/projects/:projectId/features', () => {
  it("lists the project's active flags in Unleash's shape", async () => {
    const name = await newFlag({ description: 'listed', type: 'operational' });
    const archived = await newFlag();
    await send('DELETE', flagUrl(archived));
    const res = await send('GET', '/api/admin/projects/default/features');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.version).toBe(1);
    const names = body.features.map((f: { name: string }) => f.name);
    expect(names).toContain(name);
    expect(names).not.toContain(archived);
    expect([...names].sort()).toEqual(names);
    const item = body.features.find((f: { name: string }) => f.name === name);
    expect(Object.keys(item).sort()).toEqual(
      [
        'createdAt',
        'description',
        'environments',
        'favorite',
        'impressionData',
        'name',
        'stale',
        'tags',
        'type',
      ].sort(),
    );
    expect(item).toMatchObject({ description: 'listed', type: 'operational', stale: false, favorite: false });
    expect(item.environments[0]).toEqual({
      name: 'development',
      type: 'development',
      enabled: false,
      sortOrder: 2,
      variantCount: 0,
      lastSeenAt: null,
      hasStrategies: false,
      hasEnabledStrategies: false,
    });
  });

  it('404 for an unknown project, 401 without a token', async () => {
    const res = await send('GET', '/api/admin/projects/no-such-project/features');
    expect(res.statusCode).toBe(404);
    expect(res.json().name).toBe('NotFoundError');
    const anon = await send('GET', '/api/admin/projects/default/features', undefined, NO_AUTH);
    expect(anon.statusCode).toBe(401);
  });
});
