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

const URL = '/api/admin/segments/strategies';
const segment = async () => {
  const res = await t.send('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] });
  return res.json().id as number;
};
const strategy = async () => {
  const flag = uniqueName();
  await a.createFlag('default', { name: flag });
  const res = await t.send(
    'POST',
    `/api/admin/projects/default/features/${flag}/environments/development/strategies`,
    {
      name: 'default',
    },
  );
  expect(res.statusCode).toBe(200);
  return { flag, id: res.json().id as string };
};
const segmentsOf = async (flag: string) =>
  (await a.getFlag('default', flag))
    .json()
    .environments.find((e: { name: string }) => e.name === 'development').strategies[0].segments;

describe('POST /api/admin/segments/strategies', () => {
  it('sets exactly the listed segments: 201 echoing the body, the strategy shows them, feature-strategy-update', async () => {
    const [s1, s2, s3] = [await segment(), await segment(), await segment()];
    const { flag, id } = await strategy();
    const body = { projectId: 'default', strategyId: id, environmentId: 'development', segmentIds: [s2, s1] };
    const res = await t.send('POST', URL, body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ ...body, segmentIds: [s1, s2] });
    expect(await segmentsOf(flag)).toEqual([s1, s2]);
    expect(
      (await t.send('GET', `/api/admin/segments/strategies/${id}`))
        .json()
        .segments.map((s: { id: number }) => s.id),
    ).toEqual([s1, s2]);

    expect((await t.send('POST', URL, { ...body, segmentIds: [s3] })).statusCode).toBe(201);
    expect(await segmentsOf(flag)).toEqual([s3]);
    expect(await a.lastEvent('feature-strategy-update')).toMatchObject({
      feature_name: flag,
      data: { id, segments: [s3] },
      pre_data: { id, segments: [s1, s2] },
    });
  });

  it('400 for an unknown segment or a bad body, 404 for a strategy not in that project or environment', async () => {
    const { flag, id } = await strategy();
    const before = await a.count('events');
    const base = { projectId: 'default', strategyId: id, environmentId: 'development' };
    expect((await t.send('POST', URL, { ...base, segmentIds: [999999] })).statusCode).toBe(400);
    expect((await t.send('POST', URL, { ...base, segmentIds: ['x'] })).statusCode).toBe(400);
    expect((await t.send('POST', URL, { projectId: 'default', segmentIds: [] })).statusCode).toBe(400);
    for (const wrong of [{ projectId: 'other' }, { environmentId: 'production' }, { strategyId: 'nope' }]) {
      const res = await t.send('POST', URL, { ...base, ...wrong, segmentIds: [] });
      expect(res.statusCode, JSON.stringify(wrong)).toBe(404);
    }
    expect(await a.count('events')).toBe(before);
    expect(await segmentsOf(flag)).toEqual([]);
  });

  it('a Viewer (and, the project being in the body, an Editor) gets 403; no credential 401', async () => {
    const { id } = await strategy();
    const body = { projectId: 'default', strategyId: id, environmentId: 'development', segmentIds: [] };
    for (const role of ['Viewer', 'Editor'] as const) {
      const user = await createUser(t, role);
      const res = await t.send('POST', URL, body, asUser(await login(t, user.username)));
      expect(res.statusCode).toBe(403);
      expect(res.json().name).toBe('NoAccessError');
    }
    expect((await t.send('POST', URL, body, { authorization: undefined })).statusCode).toBe(401);
  });
});
