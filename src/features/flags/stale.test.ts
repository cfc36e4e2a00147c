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
const _flagUrl = (name: string, project = 'default') => `/api/admin/projects/${project}/features/${name}`;
const eventTypes = async (name: string) => (await a.flagEvents(name)).events.map((e) => e.type);
const newFlag = async (body: Record<string, unknown> = {}) => {
  const name = uniqueName();
  await a.createFlag('default', { name, ...body });
  return name;
};

describe('POST /api/admin/projects/:projectId/stale', () => {
  it('marks listed flags, ignores unknown names, one event per changed flag', async () => {
    const one = await newFlag();
    const two = await newFlag({ description: 'x' });
    await a.updateFlag('default', two, { stale: true });
    const res = await send('POST', '/api/admin/projects/default/stale', {
      features: [one, two, uniqueName()],
      stale: true,
    });
    expect(res.statusCode).toBe(202);
    expect((await a.getFlag('default', one)).json().stale).toBe(true);
    expect((await a.flagEvents(one)).events[0]).toMatchObject({
      type: 'feature-stale-on',
      data: { stale: true },
      preData: { stale: false },
    });
    expect((await eventTypes(two)).filter((e) => e === 'feature-stale-on')).toHaveLength(1);
    await send('POST', '/api/admin/projects/default/stale', { features: [one], stale: false });
    expect((await a.flagEvents(one)).events[0]?.type).toBe('feature-stale-off');
  });

  it('400 for a bad body, 404 for an unknown project, 401; nothing changed', async () => {
    const name = await newFlag();
    const before = await a.count('events');
    const bad = await send('POST', '/api/admin/projects/default/stale', { features: [name] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().name).toBe('ValidationError');
    const none = await send('POST', '/api/admin/projects/nope/stale', { features: [name], stale: true });
    expect(none.statusCode).toBe(404);
    const anon = await send(
      'POST',
      '/api/admin/projects/default/stale',
      { features: [name], stale: true },
      NO_AUTH,
    );
    expect(anon.statusCode).toBe(401);
    expect(await a.count('events')).toBe(before);
    expect(await a.count('features', 'name = $1 AND stale', [name])).toBe(0);
  });
});
