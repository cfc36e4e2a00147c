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

const lifetime = (id: string, body: unknown, headers = {}) =>
  t.send('PUT', `/api/admin/feature-types/${id}/lifetime`, body, headers);

describe('flag types', () => {
  it('lists every type with its expected lifetime, as Unleash does', async () => {
    const res = await t.send('GET', '/api/admin/feature-types');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.version).toBe(1);
    expect(
      body.types.map((x: { id: string; lifetimeDays: number | null }) => [x.id, x.lifetimeDays]),
    ).toEqual([
      ['release', 40],
      ['experiment', 40],
      ['operational', 7],
      ['kill-switch', null],
      ['permission', null],
    ]);
    expect(body.types[0]).toEqual({
      id: 'release',
      name: 'Release',
      description: 'Release feature flags are used to release new features.',
      lifetimeDays: 40,
    });
  });

  it('changes a lifetime with an event and re-checks potential staleness at once', async () => {
    const name = uniqueName('perm');
    await a.createFlag('default', { name, type: 'permission' });
    await t.database.session((run) =>
      run(`UPDATE features SET created_at = now() - interval '5 days' WHERE name = $1`, [name]),
    );
    const res = await lifetime('permission', { lifetimeDays: 3 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'permission', lifetimeDays: 3 });
    expect((await a.getFlag('default', name)).json().potentiallyStale).toBe(true);
    const updated = await a.lastEvent('feature-type-updated');
    expect(updated).toMatchObject({
      data: { id: 'permission', lifetimeDays: 3 },
      pre_data: { id: 'permission', lifetimeDays: null },
    });
    expect((await a.flagEvents(name)).events.map((e) => e.type)).toContain('feature-potentially-stale-on');

    // 0 means never, stored as null; the mark goes with it.
    const never = await lifetime('permission', { lifetimeDays: 0 });
    expect(never.json()).toMatchObject({ lifetimeDays: null });
    expect((await a.getFlag('default', name)).json().potentiallyStale).toBe(false);
    // The same value again changes nothing and records nothing.
    const before = await a.count('events');
    expect((await lifetime('permission', { lifetimeDays: null })).statusCode).toBe(200);
    expect(await a.count('events')).toBe(before);
  });

  it('refuses unknown types, bad values and callers without ADMIN', async () => {
    expect((await lifetime('no-such-type', { lifetimeDays: 3 })).statusCode).toBe(404);
    for (const body of [{}, { lifetimeDays: -1 }, { lifetimeDays: 'ten' }, { lifetimeDays: 1.5 }]) {
      const res = await lifetime('release', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    const editor = await createUser(t, 'Editor');
    const cookie = await login(t, editor.username);
    expect((await lifetime('release', { lifetimeDays: 3 }, asUser(cookie))).statusCode).toBe(403);
    expect((await t.send('GET', '/api/admin/feature-types')).json().types[0].lifetimeDays).toBe(40);
  });
});
