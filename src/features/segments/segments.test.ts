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

const constraint = { contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] };
const stored = { ...constraint, caseInsensitive: false, inverted: false };
const create = async (body: Record<string, unknown> = {}) => {
  const res = await t.send('POST', '/api/admin/segments', {
    name: uniqueName('seg'),
    constraints: [constraint],
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(`create ${res.statusCode}: ${res.body}`);
  return res.json();
};
/** Events with no flag: read them from the table. */
const segmentEvents = async (id: number) =>
  t.database.session((run) =>
    run(
      `SELECT type, data, pre_data FROM events WHERE type LIKE 'segment-%' AND coalesce(data, pre_data)->>'id' = $1 ORDER BY id`,
      [String(id)],
    ),
  );

describe('POST /api/admin/segments', () => {
  it('creates a segment: 201, Location, the segment, segment-created', async () => {
    const name = uniqueName('seg');
    const res = await t.send('POST', '/api/admin/segments', {
      name,
      description: 'Beta',
      constraints: [constraint],
    });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(res.headers.location).toBe(`segments/${s.id}`);
    expect(s).toEqual({
      id: s.id,
      name,
      description: 'Beta',
      constraints: [stored],
      usedInFeatures: 0,
      usedInProjects: 0,
      project: null,
      createdBy: 'admin',
      createdAt: expect.any(String),
    });
    const events = await segmentEvents(s.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'segment-created',
      data: { id: s.id, name, constraints: [stored] },
      pre_data: null,
    });
    expect((await t.send('GET', `/api/admin/segments/${s.id}`)).json()).toEqual(s);
    expect((await t.send('GET', '/api/admin/segments')).json().segments).toContainEqual(s);
  });

  it.each([
    ['no constraints', { name: 'x1' }, '/body/constraints'],
    ['an empty name', { name: '', constraints: [] }, '/body/name'],
    [
      'a bad operator',
      { name: 'x2', constraints: [{ contextName: 'a', operator: 'NOPE', values: ['a'] }] },
      '/body/constraints/0/operator',
    ],
    [
      'a bad semver',
      { name: 'x3', constraints: [{ contextName: 'a', operator: 'SEMVER_EQ', value: 'v1' }] },
      '/body/constraints/0/value',
    ],
    [
      'a bad CIDR',
      { name: 'x4', constraints: [{ contextName: 'a', operator: 'IN_CIDR', values: ['1.2.3.4/99'] }] },
      '/body/constraints/0/values/0',
    ],
  ])('refuses %s (400, nothing stored)', async (_label, body, path) => {
    const before = await a.count('segments');
    const res = await t.send('POST', '/api/admin/segments', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await a.count('segments')).toBe(before);
  });

  it('answers 409 for a taken name and 404 for an unknown project, storing nothing', async () => {
    const s = await create();
    const before = await a.count('segments');
    const events = await a.count('events');
    const dup = await t.send('POST', '/api/admin/segments', { name: s.name, constraints: [] });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().name).toBe('NameExistsError');
    const noProject = await t.send('POST', '/api/admin/segments', {
      name: uniqueName('seg'),
      project: 'nope',
      constraints: [],
    });
    expect(noProject.statusCode).toBe(404);
    expect(await a.count('segments')).toBe(before);
    expect(await a.count('events')).toBe(events);
  });

  it('answers 401 without a token', async () => {
    const res = await t.send(
      'POST',
      '/api/admin/segments',
      { name: 'n', constraints: [] },
      { authorization: undefined },
    );
    expect(res.statusCode).toBe(401);
    expect(
      (await t.send('GET', '/api/admin/segments', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });
});

describe('GET/PUT/DELETE /api/admin/segments/:id', () => {
  it('400 for an id that is not a positive 32-bit integer, 404 for an unknown one', async () => {
    for (const id of ['abc', '0', '-1', '2147483648', '1.5']) {
      const res = await t.send('GET', `/api/admin/segments/${id}`);
      expect(res.statusCode, id).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect((await t.send('GET', '/api/admin/segments/2147483647')).statusCode).toBe(404);
    expect(
      (await t.send('PUT', '/api/admin/segments/2147483647', { name: 'z', constraints: [] })).statusCode,
    ).toBe(404);
    expect((await t.send('DELETE', '/api/admin/segments/2147483647')).statusCode).toBe(404);
  });

  it('PUT replaces the segment (204) and records segment-updated with preData', async () => {
    const s = await create({ description: 'old' });
    const name = uniqueName('seg');
    const res = await t.send('PUT', `/api/admin/segments/${s.id}`, {
      name,
      constraints: [{ contextName: 'v', operator: 'NUM_GT', value: '3' }],
    });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const after = (await t.send('GET', `/api/admin/segments/${s.id}`)).json();
    expect(after).toMatchObject({
      name,
      description: null,
      constraints: [{ contextName: 'v', operator: 'NUM_GT', value: '3' }],
    });
    const events = await segmentEvents(s.id);
    expect(events[1]).toMatchObject({
      type: 'segment-updated',
      data: { name },
      pre_data: { name: s.name, description: 'old' },
    });
  });

  it('PUT refuses a taken name (409) and bad constraints (400), changing nothing', async () => {
    const s = await create();
    const other = await create();
    const dup = await t.send('PUT', `/api/admin/segments/${s.id}`, { name: other.name, constraints: [] });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().name).toBe('NameExistsError');
    const bad = await t.send('PUT', `/api/admin/segments/${s.id}`, {
      name: 'fine',
      constraints: [{ contextName: 'd', operator: 'DATE_AFTER', value: '2025-13-01T00:00:00Z' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/body/constraints/0/value');
    expect((await t.send('GET', `/api/admin/segments/${s.id}`)).json()).toEqual(s);
    expect(await segmentEvents(s.id)).toHaveLength(1);
    expect(
      (
        await t.send(
          'PUT',
          `/api/admin/segments/${s.id}`,
          { name: 'x', constraints: [] },
          { authorization: undefined },
        )
      ).statusCode,
    ).toBe(401);
  });

  it('DELETE refuses a segment in use (409), lists its strategies, then deletes it (204)', async () => {
    const s = await create();
    const flag = uniqueName();
    await a.createFlag('default', { name: flag });
    const strategy = await t.send(
      'POST',
      `/api/admin/projects/default/features/${flag}/environments/development/strategies`,
      {
        name: 'default',
        segments: [s.id],
      },
    );
    expect(strategy.statusCode).toBe(200);
    const used = (await t.send('GET', `/api/admin/segments/${s.id}`)).json();
    expect(used).toMatchObject({ usedInFeatures: 1, usedInProjects: 1 });
    const list = await t.send('GET', `/api/admin/segments/${s.id}/strategies`);
    expect(list.json()).toEqual({
      strategies: [
        {
          id: strategy.json().id,
          featureName: flag,
          projectId: 'default',
          environment: 'development',
          strategyName: 'default',
        },
      ],
    });
    const refused = await t.send('DELETE', `/api/admin/segments/${s.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().name).toBe('NameExistsError');
    expect(await a.count('segments', 'id = $1', [s.id])).toBe(1);

    await t.send(
      'DELETE',
      `/api/admin/projects/default/features/${flag}/environments/development/strategies/${strategy.json().id}`,
    );
    expect(
      (await t.send('DELETE', `/api/admin/segments/${s.id}`, undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
    const res = await t.send('DELETE', `/api/admin/segments/${s.id}`);
    expect(res.statusCode).toBe(204);
    expect(await a.count('segments', 'id = $1', [s.id])).toBe(0);
    const events = await segmentEvents(s.id);
    expect(events.at(-1)).toMatchObject({
      type: 'segment-deleted',
      data: null,
      pre_data: { id: s.id, name: s.name },
    });
    expect((await t.send('GET', `/api/admin/segments/${s.id}/strategies`)).statusCode).toBe(404);
  });
});

describe('segment name validation and segments of a strategy', () => {
  it('answers 204 for a free name and 409 for a taken one', async () => {
    const taken = await create();
    const free = await t.send('POST', '/api/admin/segments/validate', { name: uniqueName('free') });
    expect(free.statusCode).toBe(204);
    const clash = await t.send('POST', '/api/admin/segments/validate', { name: taken.name });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().name).toBe('NameExistsError');
    expect((await t.send('POST', '/api/admin/segments/validate', { name: '' })).statusCode).toBe(400);
  });

  it('lists the segments a strategy uses, none for an unknown strategy', async () => {
    const [one, two] = [await create(), await create()];
    const flag = uniqueName('segflag');
    await a.createFlag('default', { name: flag });
    const strategy = await t.send(
      'POST',
      `/api/admin/projects/default/features/${flag}/environments/development/strategies`,
      {
        name: 'default',
        segments: [two.id, one.id],
      },
    );
    expect(strategy.statusCode).toBe(200);
    const res = await t.send('GET', `/api/admin/segments/strategies/${strategy.json().id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().segments.map((s: { id: number }) => s.id)).toEqual(
      [one.id, two.id].sort((x, y) => x - y),
    );
    expect(res.json().segments[0]).toEqual((await t.send('GET', `/api/admin/segments/${one.id}`)).json());
    expect((await t.send('GET', '/api/admin/segments/strategies/no-such-strategy')).json()).toEqual({
      segments: [],
    });
  });
});
