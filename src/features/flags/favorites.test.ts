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

describe('favorites', () => {
  it('an API token has no favorites: 200, nothing stored, no event; 404 for unknown flag', async () => {
    const name = await newFlag();
    const before = await a.count('events');
    const add = await t.request({ method: 'POST', url: `${flagUrl(name)}/favorites` });
    expect(add.statusCode).toBe(200);
    const remove = await t.request({ method: 'DELETE', url: `${flagUrl(name)}/favorites` });
    expect(remove.statusCode).toBe(200);
    expect(await a.count('favorite_features', 'feature_name = $1', [name])).toBe(0);
    expect(await a.count('events')).toBe(before);
    expect((await send('POST', `${flagUrl(uniqueName())}/favorites`)).statusCode).toBe(404);
    expect((await send('POST', `${flagUrl(name, 'other')}/favorites`)).statusCode).toBe(404);
    expect((await send('POST', `${flagUrl(name)}/favorites`, undefined, NO_AUTH)).statusCode).toBe(401);
  });
});
