import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

/**
 * `GET /api/client/delta` through HTTP: a hydration shaped as the client API, 304 while nothing
 * the token sees changed (also when another project changes), the events after a cursor for each
 * kind of change, and a hydration for a cursor older than the kept changes.
 */
let t: TestApp;
let token: string;
let witness: string;
const project = uniqueName('delta-proj');
const other = uniqueName('delta-other');
const ENV = 'development';
const RING = 3;

type Event = { type: string; eventId: number; [key: string]: unknown };

beforeAll(async () => {
  t = await startTestApp({ config: { DELTA_RING_SIZE: RING } });
  for (const id of [project, other]) {
    await t.database.session(async (run) => {
      await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [id]);
      await run(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, $2)`, [id, ENV]);
    });
  }
  token = await configSql(t).addToken('client', [project], ENV);
  witness = await configSql(t).addToken('client', ['*'], ENV);
});
afterAll(() => t.close());

const delta = (secret: string, cursor?: number | string) =>
  t.request({
    method: 'GET',
    url: '/api/client/delta',
    headers: {
      authorization: secret,
      ...(cursor !== undefined && { 'if-none-match': typeof cursor === 'number' ? `"${cursor}"` : cursor }),
    },
  });

/**
 * The events after `cursor` once `ready` holds for them (by default: there are some), asking
 * again while the configuration catches up with the writes (at most 5 s).
 */
async function eventsAfter(
  cursor: number,
  secret = token,
  ready: (events: Event[]) => boolean = () => true,
): Promise<{ events: Event[]; etag: string }> {
  const started = Date.now();
  for (;;) {
    const res = await delta(secret, cursor);
    if (res.statusCode === 200 && ready(res.json().events)) {
      return { events: res.json().events, etag: String(res.headers.etag) };
    }
    expect([200, 304]).toContain(res.statusCode);
    if (Date.now() - started > 5000) throw new Error(`no change after ${cursor}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function ok(method: string, url: string, body?: unknown) {
  const res = await t.send(method, url, body);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.body ? res.json() : undefined;
}
const flagUrl = (p: string, name: string) => `/api/admin/projects/${p}/features/${name}`;
const envUrl = (p: string, name: string) => `${flagUrl(p, name)}/environments/${ENV}`;

let flag: string;
let cursor: number;
let strategyId: string;
let segmentId: number;

describe('GET /api/client/delta', () => {
  it('without a cursor: one hydration, features and segments as /api/client/features, ETag the event id', async () => {
    flag = uniqueName('delta-flag');
    await api(t).createFlag(project, { name: flag });
    await api(t).createFlag(other, { name: uniqueName('unseen') });
    await ok('POST', `${envUrl(project, flag)}/on`);
    // The configuration SDKs read may be a moment behind the writes (ADR 0007).
    let res = await delta(token);
    for (let i = 0; i < 100 && !res.json().events[0].features[0]?.enabled; i++) {
      await new Promise((r) => setTimeout(r, 25));
      res = await delta(token);
    }
    expect(res.statusCode).toBe(200);
    const events: Event[] = res.json().events;
    expect(events).toHaveLength(1);
    const [hydration] = events as [Event];
    expect(hydration.type).toBe('hydration');
    expect(res.headers.etag).toBe(`"${hydration.eventId}"`);
    const full = await t.request({
      method: 'GET',
      url: '/api/client/features',
      headers: { authorization: token, 'unleash-client-spec': '5.2.0' },
    });
    expect(hydration.features).toEqual(full.json().features);
    expect(hydration.segments).toEqual(full.json().segments);
    expect((hydration.features as { name: string }[]).map((f) => f.name)).toEqual([flag]);
    cursor = hydration.eventId;
  });

  it('answers 304 with no body for the current cursor, and for a change in a project outside the token', async () => {
    const same = await delta(token, cursor);
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    const elsewhere = uniqueName('unseen');
    await api(t).createFlag(other, { name: elsewhere });
    // The wildcard token sees the change: the configuration has moved past it.
    const seen = await eventsAfter(cursor, witness, (events) =>
      events.some((e) => (e.feature as { name?: string } | undefined)?.name === elsewhere),
    );
    expect(seen.events.map((e) => e.type)).toContain('feature-updated');
    expect((await delta(token, cursor)).statusCode).toBe(304);
  });

  it('sends feature-updated with the whole flag after an update, with its event id as the ETag', async () => {
    await ok('POST', `${envUrl(project, flag)}/off`);
    const { events, etag } = await eventsAfter(cursor);
    expect(events).toEqual([
      {
        type: 'feature-updated',
        eventId: expect.any(Number),
        feature: expect.objectContaining({ name: flag }),
      },
    ]);
    const [event] = events as [Event];
    expect(event.feature).toMatchObject({ name: flag, project, enabled: false });
    expect(event.eventId).toBeGreaterThan(cursor);
    expect(etag).toBe(`"${event.eventId}"`);
    cursor = event.eventId;
    expect((await delta(token, cursor)).statusCode).toBe(304);
  });

  it('sends a segment a flag starts to use before the flag, then segment-updated when it changes', async () => {
    const segment = await ok('POST', '/api/admin/segments', {
      name: uniqueName('seg'),
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
    });
    const strategy = { name: 'default', segments: [segment.id] };
    strategyId = (await ok('POST', `${envUrl(project, flag)}/strategies`, strategy)).id;
    segmentId = segment.id;
    let { events } = await eventsAfter(cursor, token, (list) =>
      list.some((e) => e.type === 'feature-updated'),
    );
    // The segment's creation alone concerns no flag of the token; it may come in the same answer.
    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe('feature-updated');
    const segmentEvent = events.find((e) => e.type === 'segment-updated') as Event;
    expect(segmentEvent.segment).toEqual({
      id: segment.id,
      name: segment.name,
      constraints: segment.constraints,
    });
    expect(types.indexOf('segment-updated')).toBeLessThan(types.indexOf('feature-updated'));
    cursor = (events.at(-1) as Event).eventId;

    await ok('PUT', `/api/admin/segments/${segment.id}`, {
      name: segment.name,
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u2'] }],
    });
    ({ events } = await eventsAfter(cursor));
    expect(events).toEqual([
      {
        type: 'segment-updated',
        eventId: expect.any(Number),
        segment: expect.objectContaining({
          id: segment.id,
          constraints: [expect.objectContaining({ values: ['u2'] })],
        }),
      },
    ]);
    cursor = (events.at(-1) as Event).eventId;
  });

  it('sends segment-removed when a segment is deleted', async () => {
    // Unused first (a segment in use cannot be deleted): the flag changes, then the segment goes.
    await ok('DELETE', `${envUrl(project, flag)}/strategies/${strategyId}`);
    cursor = ((await eventsAfter(cursor)).events.at(-1) as Event).eventId;
    await ok('DELETE', `/api/admin/segments/${segmentId}`);
    const { events } = await eventsAfter(cursor);
    expect(events.at(-1)).toEqual({
      type: 'segment-removed',
      eventId: expect.any(Number),
      segmentId,
    });
    cursor = (events.at(-1) as Event).eventId;
  });

  it('sends feature-removed with the project after an archive', async () => {
    await ok('DELETE', flagUrl(project, flag));
    const { events } = await eventsAfter(cursor);
    expect(events).toEqual([
      { type: 'feature-removed', eventId: expect.any(Number), featureName: flag, project },
    ]);
    cursor = (events.at(-1) as Event).eventId;
  });

  it('answers a cursor older than the kept changes, or not a number, with a hydration', async () => {
    const old = cursor;
    const names: string[] = [];
    for (let i = 0; i <= RING; i++) {
      const name = uniqueName('ring');
      names.push(name);
      await api(t).createFlag(project, { name });
      const { events } = await eventsAfter(cursor, token, (list) =>
        list.some((e) => (e.feature as { name?: string } | undefined)?.name === name),
      );
      cursor = (events.at(-1) as Event).eventId;
    }
    for (const stale of [old, 0, '"abc"']) {
      const res = await delta(token, stale);
      expect(res.statusCode).toBe(200);
      const events: Event[] = res.json().events;
      expect(events.map((e) => e.type)).toEqual(['hydration']);
      const [hydration] = events as [Event];
      expect((hydration.features as { name: string }[]).map((f) => f.name).sort()).toEqual(names.sort());
    }
    // A cursor still kept gets only the later changes.
    const recent = await delta(token, cursor - 1);
    expect(recent.json().events.map((e: Event) => e.type)).not.toContain('hydration');
  });

  it('refuses a missing or a frontend token as /api/client/features does', async () => {
    expect((await delta(undefined as unknown as string)).statusCode).toBe(401);
    const frontend = await configSql(t).addToken('frontend', [project], ENV);
    const res = await delta(frontend);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ name: 'NoAccessError' });
  });
});
