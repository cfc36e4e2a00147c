import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

/**
 * Search answers are kept in the read cache (search.service.ts) while nothing they show changes.
 * Every change below must show in the next search; the suite's read cache also rebuilds every hit
 * and fails on a difference (READ_CACHE_VERIFY), so a kept answer that went stale fails loudly.
 */
let t: TestApp;
/** The service's clock (ms): moved by the tests, never by itself. */
let clock = Date.parse('2031-03-04T10:20:00Z');
let token: string;
const SEARCH = '/api/admin/search/features?query=kept&sortBy=name';

interface Item {
  name: string;
  favorite: boolean;
  description: string | null;
  environments: { name: string; yes: number; lastSeenAt: string | null }[];
}
const search = async (headers: Record<string, string | undefined> = {}) => {
  const res = await t.send('GET', SEARCH, undefined, headers);
  expect(res.statusCode).toBe(200);
  return res.json() as { features: Item[]; total: number };
};
const development = (item: Item | undefined) => item?.environments.find((e) => e.name === 'development');

async function report(flag: string, yes: number) {
  const start = new Date(clock).toISOString();
  const res = await t.send(
    'POST',
    '/api/client/metrics',
    { appName: 'web', instanceId: 'i1', bucket: { start, stop: start, toggles: { [flag]: { yes, no: 0 } } } },
    { authorization: token },
  );
  expect(res.statusCode).toBe(202);
}

beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(clock) });
  for (const name of ['kept-a', 'kept-b']) await api(t).createFlag('default', { name });
  token = await configSql(t).addToken('client', ['*'], 'development');
});
afterAll(() => t.close());

describe('kept search answers', () => {
  it('show a change made through the admin API at once', async () => {
    expect((await search()).features.map((f) => f.description)).toEqual([null, null]);
    const put = await t.send('PUT', '/api/admin/projects/default/features/kept-a', {
      description: 'now described',
    });
    expect(put.statusCode).toBe(200);
    expect((await search()).features[0]?.description).toBe('now described');
    await api(t).createFlag('default', { name: 'kept-c' });
    expect((await search()).total).toBe(3);
  });

  it("are the caller's own: a favorite shows for the person who set it, not for others", async () => {
    const [one, other] = [await createUser(t, 'Editor'), await createUser(t, 'Editor')];
    const [first, second] = [await login(t, one.username), await login(t, other.username)];
    expect((await search(asUser(first))).features[0]?.favorite).toBe(false);
    const fav = await t.send(
      'POST',
      '/api/admin/projects/default/features/kept-a/favorites',
      undefined,
      asUser(first),
    );
    expect(fav.statusCode).toBe(200);
    expect((await search(asUser(first))).features[0]?.favorite).toBe(true);
    expect((await search(asUser(second))).features[0]?.favorite).toBe(false);
  });

  it("show an SDK's metrics once written, and drop them when the clock leaves the last hour", async () => {
    expect(development((await search()).features[1])?.yes).toBe(0);
    await report('kept-b', 5);
    const seen = development((await search()).features[1]);
    expect(seen?.yes).toBe(5);
    expect(seen?.lastSeenAt).not.toBeNull();
    // Later in the same hour and the next: the bucket of 10:00 still counts until 11:00.
    clock += 30 * 60_000; // 10:50
    expect(development((await search()).features[1])?.yes).toBe(5);
    clock = Date.parse('2031-03-04T11:00:00Z');
    expect(development((await search()).features[1])?.yes).toBe(5);
    // Past 11:00 the 10:00 bucket is older than an hour: no write, yet the answer changes.
    clock += 1;
    expect(development((await search()).features[1])?.yes).toBe(0);
  });
});
