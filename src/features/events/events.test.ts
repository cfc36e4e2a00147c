import type { LightMyRequestResponse } from 'fastify';
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

interface Event {
  id: number;
  createdAt: string;
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  environment: string | null;
  project: string | null;
  featureName: string | null;
  data: Record<string, unknown> | null;
  preData: Record<string, unknown> | null;
  tags: { type: string; value: string }[] | null;
}
interface EventList {
  version: number;
  toggleName?: string;
  events: Event[];
  totalEvents: number;
}

const EVENT_FIELDS = [
  'createdAt',
  'createdBy',
  'createdByUserId',
  'data',
  'environment',
  'featureName',
  'id',
  'label',
  'preData',
  'project',
  'summary',
  'tags',
  'type',
];

const get = (url: string, headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'GET', url, headers });

function list(res: LightMyRequestResponse): EventList {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers.deprecation).toBe('true');
  const body = res.json() as EventList;
  expect(body.version).toBe(1);
  return body;
}

const ids = (events: Event[]) => events.map((e) => e.id);
const descending = (values: number[]) => [...values].sort((x, y) => y - x);

/** The ids the events table holds, newest first, straight from SQL. */
async function idsInTable(where = 'true', params: unknown[] = [], limit = 1_000_000): Promise<number[]> {
  const rows = await t.database.session((run) =>
    run(`SELECT id FROM events WHERE ${where} ORDER BY id DESC LIMIT ${limit}`, params),
  );
  return rows.map((r) => Number(r.id));
}

describe('GET /api/admin/events', () => {
  const other = uniqueName('proj');
  let lastName = '';

  beforeAll(async () => {
    await t.database.session((run) => run('INSERT INTO projects (id, name) VALUES ($1, $1)', [other]));
    for (let i = 0; i < 3; i++) await a.createFlag(other, { name: uniqueName('other') });
    for (let i = 0; i < 105; i++) {
      lastName = uniqueName('bulk');
      await a.createFlag('default', { name: lastName });
    }
  });

  it('returns the last 100 events newest first, with totalEvents counting every event', async () => {
    const body = list(await get('/api/admin/events'));
    expect(body.events).toHaveLength(100);
    expect(ids(body.events)).toEqual(await idsInTable('true', [], 100));
    expect(ids(body.events)).toEqual(descending(ids(body.events)));
    expect(new Set(ids(body.events)).size).toBe(100);
    expect(body.events[0]).toMatchObject({ type: 'feature-created', featureName: lastName });
    expect(body.totalEvents).toBe(await a.count('events'));
    expect(body.totalEvents).toBeGreaterThanOrEqual(108);
  });

  it('gives every event exactly the fields of the event record', async () => {
    const { events } = list(await get('/api/admin/events'));
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
      expect(new Date(event.createdAt).toISOString()).toBe(event.createdAt);
    }
    expect(events[0]).toMatchObject({
      createdBy: 'admin',
      createdByUserId: -42,
      environment: null,
      project: 'default',
      preData: null,
      tags: [],
      data: { name: lastName, project: 'default', type: 'release' },
      // Unleash's web UI reads these; this service writes neither (the schema allows null).
      label: null,
      summary: null,
    });
    expect(Date.parse(events[0]!.createdAt)).toBeGreaterThan(Date.now() - 120_000);
  });

  it('returns all events of a project with ?project, beyond 100', async () => {
    const all = list(await get('/api/admin/events?project=default'));
    const inDefault = await a.count('events', 'project = $1', ['default']);
    expect(inDefault).toBeGreaterThan(100);
    expect(all.events).toHaveLength(inDefault);
    expect(all.totalEvents).toBe(inDefault);
    expect(ids(all.events)).toEqual(await idsInTable('project = $1', ['default']));
    expect(all.events.every((e) => e.project === 'default')).toBe(true);

    const small = list(await get(`/api/admin/events?project=${other}`));
    expect(small.totalEvents).toBe(3);
    expect(small.events.map((e) => [e.type, e.project])).toEqual(Array(3).fill(['feature-created', other]));
  });

  it('returns an empty list for an unknown project', async () => {
    expect(list(await get('/api/admin/events?project=no-such-project'))).toEqual({
      version: 1,
      events: [],
      totalEvents: 0,
    });
  });

  it('answers 401 without a token or with an unknown one', async () => {
    for (const authorization of [undefined, '*:*.not-a-real-token']) {
      const res = await get('/api/admin/events', { authorization });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ id: expect.any(String), name: 'AuthenticationRequired' });
    }
  });
});

describe('GET /api/admin/events/:featureName', () => {
  it('returns every event of the flag newest first, with version, toggleName and totalEvents', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name, description: 'v0' });
    for (let i = 1; i <= 110; i++) await a.updateFlag('default', name, { description: `v${i}` });
    await a.updateFlag('default', name, { stale: true });
    await a.createFlag('default', { name: uniqueName() });

    const body = list(await get(`/api/admin/events/${name}`));
    expect(body.toggleName).toBe(name);
    expect(body.totalEvents).toBe(112);
    expect(body.events).toHaveLength(112);
    expect(ids(body.events)).toEqual(await idsInTable('feature_name = $1', [name]));
    expect(body.events.every((e) => e.featureName === name)).toBe(true);
    expect(body.events.slice(0, 3).map((e) => e.type)).toEqual([
      'feature-stale-on',
      'feature-metadata-updated',
      'feature-metadata-updated',
    ]);
    expect(body.events[1]).toMatchObject({ data: { description: 'v110' }, preData: { description: 'v109' } });
    expect(body.events.at(-1)?.type).toBe('feature-created');
    for (const event of body.events) expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
  });

  it('answers 200 with an empty list for an unknown flag', async () => {
    expect(list(await get('/api/admin/events/no-such-flag'))).toEqual({
      version: 1,
      toggleName: 'no-such-flag',
      events: [],
      totalEvents: 0,
    });
  });

  it('works for names with URL-safe special characters, sent plain or percent-encoded', async () => {
    const name = uniqueName("a.b~c_d!e*f'g(h)");
    await a.createFlag('default', { name });
    const plain = list(await get(`/api/admin/events/${name}`));
    expect(plain.toggleName).toBe(name);
    expect(plain.events.map((e) => [e.type, e.featureName])).toEqual([['feature-created', name]]);
    const encoded = name.replace('~', '%7E').replace('.', '%2E').replace('(', '%28');
    expect(list(await get(`/api/admin/events/${encoded}`)).events).toEqual(plain.events);
  });

  it('answers 401 without a token', async () => {
    const res = await get('/api/admin/events/anything', { authorization: undefined });
    expect(res.statusCode).toBe(401);
    expect(res.json().name).toBe('AuthenticationRequired');
  });
});

describe('events are written in the transaction of the change', () => {
  const create = (project: string, body: Record<string, unknown>) =>
    t.request({ method: 'POST', url: `/api/admin/projects/${project}/features`, payload: body });

  /** A refused create must leave the event log exactly as it was. */
  async function refusedWithoutEvent(
    project: string,
    body: Record<string, unknown>,
    status: number,
    error: string,
  ) {
    const before = await idsInTable();
    const res = await create(project, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().name).toBe(error);
    expect(await idsInTable()).toEqual(before);
    expect(list(await get('/api/admin/events')).totalEvents).toBe(before.length);
  }

  it('records nothing for a duplicate name (409)', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    await refusedWithoutEvent('default', { name, description: 'again' }, 409, 'NameExistsError');
    expect((await a.flagEvents(name)).totalEvents).toBe(1);
  });

  it('records nothing for an unknown project (404)', async () => {
    const name = uniqueName();
    await refusedWithoutEvent('no-such-project', { name }, 404, 'NotFoundError');
    expect(list(await get(`/api/admin/events/${name}`)).events).toEqual([]);
  });

  it('records nothing for an unknown tag type (404), also after a valid tag', async () => {
    const name = uniqueName();
    const tags = [
      { type: 'simple', value: 'fine' },
      { type: 'no-such-type', value: 'abc' },
    ];
    await refusedWithoutEvent('default', { name, tags }, 404, 'NotFoundError');
    expect(await a.count('feature_tag', 'feature_name = $1', [name])).toBe(0);
  });

  it("carries the flag's tags as they were when the event happened", async () => {
    const name = uniqueName();
    const tags = [
      { type: 'simple', value: 'team-b' },
      { type: 'simple', value: 'team-a' },
    ];
    await a.createFlag('default', { name, tags });
    await t.database.session((run) =>
      run(`DELETE FROM feature_tag WHERE feature_name = $1 AND tag_value = 'team-b'`, [name]),
    );
    await a.updateFlag('default', name, { description: 'after untagging' });
    const { events } = list(await get(`/api/admin/events/${name}`));
    expect(events.map((e) => [e.type, e.tags])).toEqual([
      ['feature-metadata-updated', [{ type: 'simple', value: 'team-a' }]],
      [
        'feature-created',
        [
          { type: 'simple', value: 'team-a' },
          { type: 'simple', value: 'team-b' },
        ],
      ],
    ]);
  });
});

describe('GET /api/admin/event-creators', () => {
  it('lists the users who recorded events, not tokens or users who recorded none', async () => {
    const author = await createUser(t, 'Editor', { name: 'Ada Author' });
    const idle = await createUser(t, 'Editor');
    await a.createFlag('default', { name: uniqueName('by-token') });
    const cookie = await login(t, author.username);
    const created = await t.send(
      'POST',
      '/api/admin/projects/default/features',
      { name: uniqueName('by-user') },
      asUser(cookie),
    );
    expect(created.statusCode).toBe(200);
    const res = await t.send('GET', '/api/admin/event-creators');
    expect(res.statusCode).toBe(200);
    const creators = res.json() as { id: number; name: string }[];
    expect(creators).toContainEqual({ id: author.id, name: 'Ada Author' });
    expect(creators.some((c) => c.id === idle.id)).toBe(false);
    expect(creators.every((c) => c.id > 0)).toBe(true);
  });
});

describe('GET /api/admin/search/events', () => {
  it('filters by flag, type, project, creator, day and text, newest first, with paging and a total', async () => {
    const project = uniqueName('evp');
    await t.send('POST', '/api/admin/projects', { id: project, name: project });
    const [one, two] = [uniqueName('ev1'), uniqueName('ev2')];
    await a.createFlag(project, { name: one, description: 'needle-in-haystack' });
    await a.createFlag(project, { name: two });
    await t.send('POST', `/api/admin/projects/${project}/features/${two}/environments/production/on`);
    const search = async (qs: string) => {
      const res = await t.send('GET', `/api/admin/search/events?${qs}`);
      expect(res.statusCode, qs).toBe(200);
      return res.json() as {
        total: number;
        events: { id: number; type: string; featureName: string | null }[];
      };
    };
    const inProject = await search(`project=IS:${project}`);
    expect(inProject.total).toBe(inProject.events.length);
    expect(inProject.events.map((e) => e.id)).toEqual(
      [...inProject.events.map((e) => e.id)].sort((x, y) => y - x),
    );
    expect((await search(`feature=IS:${one}`)).events.map((e) => e.type)).toEqual(['feature-created']);
    const enabled = await search(
      `project=IS:${project}&type=IS_ANY_OF:feature-environment-enabled,feature-archived&environment=IS:production`,
    );
    expect(enabled.events.map((e) => [e.type, e.featureName])).toEqual([
      ['feature-environment-enabled', two],
    ]);
    expect((await search('query=NEEDLE-in')).events.map((e) => e.featureName)).toEqual([one]);
    expect((await search('query=needle%25haystack')).total).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await search(`project=IS:${project}&from=IS:${today}&to=IS:${today}`)).total).toBe(
      inProject.total,
    );
    expect((await search(`project=IS:${project}&to=IS:2000-01-01`)).total).toBe(0);
    const page = await search(`project=IS:${project}&limit=1&offset=1`);
    expect(page).toEqual({ total: inProject.total, events: [inProject.events[1]] });
    expect((await search('createdBy=IS:999999')).total).toBe(0);
    // Filters with no usable value match nothing rather than failing.
    expect((await search('id=IS:abc')).total).toBe(0);
    expect((await search('groupId=IS:1')).total).toBe(0);
    for (const bad of [
      'limit=0',
      'limit=5000',
      'type=feature-created',
      'from=2026-01-01',
      'from=IS:2026-13-45',
    ]) {
      expect((await t.send('GET', `/api/admin/search/events?${bad}`)).statusCode, bad).toBe(400);
    }
  });
});
