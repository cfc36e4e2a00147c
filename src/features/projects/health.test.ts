import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { checkPotentialStaleness } from '../flags/index.js';

// The service's clock, set by the tests: null follows the real time.
let clock: number | null = null;
const now = () => new Date(clock ?? Date.now());
const DAY = 86_400_000;

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp({ now });
  a = api(t);
});
afterAll(() => t.close());

const runJob = () => checkPotentialStaleness({ database: t.database, now });
const createProject = async () => {
  const id = uniqueName('health');
  const res = await t.send('POST', '/api/admin/projects', { id, name: `Project ${id}` });
  if (res.statusCode !== 201) throw new Error(`createProject ${res.statusCode}: ${res.body}`);
  return id;
};
const report = async (id: string) => {
  const res = await t.send('GET', `/api/admin/projects/${id}/health-report`);
  expect(res.statusCode).toBe(200);
  return res.json();
};
const overview = async (id: string) => (await t.send('GET', `/api/admin/projects/${id}`)).json();
const createdAt = async (project: string, name: string) =>
  Date.parse((await a.getFlag(project, name)).json().createdAt);
const staleEvents = async (name: string) =>
  (await a.flagEvents(name)).events.filter((e) => e.type === 'feature-potentially-stale-on');

describe('GET /api/admin/projects/:projectId/health-report', () => {
  it('reports a project without flags as fully healthy, with every field of the spec', async () => {
    const id = await createProject();
    const body = await report(id);
    expect(body).toEqual({
      version: 1,
      id,
      name: `Project ${id}`,
      description: null,
      defaultStickiness: 'default',
      mode: 'open',
      featureLimit: null,
      featureNaming: { pattern: null, example: null, description: null },
      members: 0,
      health: 100,
      technicalDebt: 0,
      environments: [{ environment: 'development' }, { environment: 'production' }],
      features: [],
      updatedAt: expect.any(String),
      createdAt: expect.any(String),
      favorite: false,
      stats: {
        avgTimeToProdCurrentWindow: 0,
        createdCurrentWindow: 0,
        createdPastWindow: 0,
        archivedCurrentWindow: 0,
        archivedPastWindow: 0,
        projectActivityCurrentWindow: 1,
        projectActivityPastWindow: 0,
        projectMembersAddedCurrentWindow: 0,
      },
      potentiallyStaleCount: 0,
      activeCount: 0,
      staleCount: 0,
    });
  });

  it('answers 404 for an unknown project and 401 without credentials', async () => {
    const res = await t.send('GET', '/api/admin/projects/no-such-project/health-report');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ name: 'NotFoundError' });
    const anonymous = await t.send('GET', '/api/admin/projects/default/health-report', undefined, {
      authorization: undefined,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('counts stale, potentially stale and active flags of mixed types; a flag marked stale counts at once', async () => {
    const id = await createProject();
    const fresh = uniqueName('fresh');
    const marked = uniqueName('marked');
    const oldKillSwitch = uniqueName('ks');
    const oldOperational = uniqueName('ops');
    const archived = uniqueName('gone');
    await a.createFlag(id, { name: fresh });
    await a.createFlag(id, { name: marked });
    await a.createFlag(id, { name: oldKillSwitch, type: 'kill-switch' });
    await a.createFlag(id, { name: oldOperational, type: 'operational' });
    await a.createFlag(id, { name: archived });
    await a.updateFlag(id, marked, { stale: true });
    await a.updateFlag(id, archived, { stale: true });
    await a.updateFlag(id, archived, { archived: true });
    // Ten days on, the operational flag (7-day lifetime) is past its lifetime; a kill switch never is.
    clock = Date.now() + 10 * DAY;
    await runJob();
    let body = await report(id);
    expect(body).toMatchObject({ activeCount: 3, staleCount: 1, potentiallyStaleCount: 1 });
    // round(100 - 1/4·100 - 1/4·100)
    expect(body.health).toBe(50);
    expect(body.technicalDebt).toBe(50);
    const byName = Object.fromEntries(body.features.map((f: { name: string }) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual([fresh, marked, oldKillSwitch, oldOperational].sort());
    expect(byName[oldOperational]).toMatchObject({ potentiallyStale: true, stale: false, archived: false });
    expect(byName[oldKillSwitch]).toMatchObject({ potentiallyStale: false });
    expect(byName[marked]).toMatchObject({ stale: true, potentiallyStale: false });

    // No job run in between: marking stale shows in the next answer.
    await a.updateFlag(id, fresh, { stale: true });
    body = await report(id);
    expect(body).toMatchObject({ activeCount: 2, staleCount: 2, potentiallyStaleCount: 1, health: 25 });
    expect((await overview(id)).health).toBe(25);

    // All stale: health 0, never negative.
    for (const name of [oldKillSwitch, oldOperational]) await a.updateFlag(id, name, { stale: true });
    body = await report(id);
    expect(body).toMatchObject({ activeCount: 0, staleCount: 4, potentiallyStaleCount: 0, health: 0 });
    expect(body.technicalDebt).toBe(100);
    clock = null;
    await runJob();
  });

  it('counts members once whether they hold a role directly or through groups', async () => {
    const id = await createProject();
    const direct = await createUser(t);
    const viaGroup = await createUser(t);
    const group = await t.send('POST', '/api/admin/groups', {
      name: uniqueName('team'),
      users: [{ user: { id: direct.id } }, { user: { id: viaGroup.id } }],
    });
    const grant = await t.send('POST', `/api/admin/projects/${id}/access`, {
      roles: [5],
      users: [{ id: direct.id }],
      groups: [{ id: group.json().id }],
    });
    expect(grant.statusCode).toBe(200);
    const body = await report(id);
    expect(body.members).toBe(2);
    // One user grant and one group grant in the last 30 days.
    expect(body.stats.projectMembersAddedCurrentWindow).toBe(2);
    clock = Date.now() + 31 * DAY;
    expect((await report(id)).stats.projectMembersAddedCurrentWindow).toBe(0);
    clock = null;
  });
});

describe('favorites in the overview', () => {
  it('shows each user their own favorite flags and project; tokens none', async () => {
    const id = await createProject();
    const names = [uniqueName('fav'), uniqueName('plain')].sort();
    for (const name of names) await a.createFlag(id, { name });
    const [fan, other] = [await createUser(t, 'Editor'), await createUser(t, 'Editor')];
    const fanCookie = await login(t, fan.username);
    const otherCookie = await login(t, other.username);
    const favorite = (url: string) => t.send('POST', url, undefined, asUser(fanCookie));
    expect((await favorite(`/api/admin/projects/${id}/features/${names[0]}/favorites`)).statusCode).toBe(200);
    expect((await favorite(`/api/admin/projects/${id}/favorites`)).statusCode).toBe(200);
    const seenBy = async (headers: Record<string, string | undefined>) => {
      const body = (
        await t.send('GET', `/api/admin/projects/${id}/health-report`, undefined, headers)
      ).json();
      return [
        body.favorite,
        body.features.map((f: { name: string; favorite: boolean }) => [f.name, f.favorite]),
      ];
    };
    expect(await seenBy(asUser(fanCookie))).toEqual([
      true,
      [
        [names[0], true],
        [names[1], false],
      ],
    ]);
    expect(await seenBy(asUser(otherCookie))).toEqual([
      false,
      [
        [names[0], false],
        [names[1], false],
      ],
    ]);
    expect(await seenBy({})).toEqual([
      false,
      [
        [names[0], false],
        [names[1], false],
      ],
    ]);
  });
});

describe('potential staleness', () => {
  it('marks a flag once it reaches its lifetime, in the flag, the overview, the health report and search, with one event', async () => {
    const id = await createProject();
    const name = uniqueName('release');
    await a.createFlag(id, { name });
    const born = await createdAt(id, name);
    const searchPotentiallyStale = async () =>
      (await t.send('GET', `/api/admin/search/features?project=IS:${id}&state=IS:potentially-stale`))
        .json()
        .features.map((f: { name: string }) => f.name);

    // A release flag's expected lifetime is 40 days: one millisecond short, nothing happens.
    clock = born + 40 * DAY - 1;
    await runJob();
    expect((await a.getFlag(id, name)).json().potentiallyStale).toBe(false);
    expect(await staleEvents(name)).toEqual([]);

    // The API shows whole milliseconds; the database keeps up to a millisecond more.
    clock = born + 40 * DAY + 1;
    // Two instances' rounds at once: the flag turns potentially stale once.
    await Promise.all([runJob(), runJob()]);
    expect((await a.getFlag(id, name)).json().potentiallyStale).toBe(true);
    expect((await overview(id)).features[0]).toMatchObject({ name, potentiallyStale: true });
    expect(await report(id)).toMatchObject({ potentiallyStaleCount: 1, activeCount: 1, health: 0 });
    expect(await searchPotentiallyStale()).toEqual([name]);
    const events = await staleEvents(name);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      project: id,
      createdBy: 'unleash_system_user',
      data: { name, potentiallyStale: true },
    });
    await runJob();
    expect(await staleEvents(name)).toHaveLength(1);

    // Marked stale, it is stale rather than potentially stale; unmarked, it is potentially stale again.
    await a.updateFlag(id, name, { stale: true });
    expect((await a.getFlag(id, name)).json()).toMatchObject({ stale: true, potentiallyStale: false });
    expect(await report(id)).toMatchObject({ potentiallyStaleCount: 0, staleCount: 1 });
    await a.updateFlag(id, name, { stale: false });
    expect((await a.getFlag(id, name)).json().potentiallyStale).toBe(true);

    // A kill switch has no expected lifetime: the next round clears the mark, without an event.
    await a.updateFlag(id, name, { type: 'kill-switch' });
    await runJob();
    expect((await a.getFlag(id, name)).json().potentiallyStale).toBe(false);
    expect(await searchPotentiallyStale()).toEqual([]);
    expect(await staleEvents(name)).toHaveLength(1);
    clock = null;
    await runJob();
  });
});

describe('project statistics windows', () => {
  it('counts flags created and archived and project events in the last 30 days and the 30 before', async () => {
    const id = await createProject();
    const name = uniqueName('win');
    await a.createFlag(id, { name });
    await a.updateFlag(id, name, { archived: true });
    const flag = (await a.getFlag(id, name)).json();
    const created = Date.parse(flag.createdAt);
    const archivedAt = Date.parse(flag.archivedAt);
    const events = (await t.send('GET', `/api/admin/events?project=${id}`)).json().events as {
      createdAt: string;
    }[];
    const firstEvent = Math.min(...events.map((e) => Date.parse(e.createdAt)));
    const lastEvent = Math.max(...events.map((e) => Date.parse(e.createdAt)));
    const stats = async (at: number) => {
      clock = at;
      return (await report(id)).stats;
    };

    // Exactly 30 days after: still the current window (timestamps are whole milliseconds here,
    // at most a fraction of one later in the database).
    expect(await stats(created + 30 * DAY)).toMatchObject({ createdCurrentWindow: 1, createdPastWindow: 0 });
    expect(await stats(created + 30 * DAY + 1)).toMatchObject({
      createdCurrentWindow: 0,
      createdPastWindow: 1,
    });
    expect(await stats(created + 60 * DAY)).toMatchObject({ createdCurrentWindow: 0, createdPastWindow: 1 });
    expect(await stats(created + 60 * DAY + 1)).toMatchObject({
      createdCurrentWindow: 0,
      createdPastWindow: 0,
    });

    expect(await stats(archivedAt + 30 * DAY)).toMatchObject({
      archivedCurrentWindow: 1,
      archivedPastWindow: 0,
    });
    expect(await stats(archivedAt + 30 * DAY + 1)).toMatchObject({
      archivedCurrentWindow: 0,
      archivedPastWindow: 1,
    });
    expect(await stats(archivedAt + 60 * DAY + 1)).toMatchObject({
      archivedCurrentWindow: 0,
      archivedPastWindow: 0,
    });

    expect(await stats(firstEvent + 30 * DAY)).toMatchObject({
      projectActivityCurrentWindow: events.length,
      projectActivityPastWindow: 0,
    });
    expect(await stats(lastEvent + 30 * DAY + 1)).toMatchObject({
      projectActivityCurrentWindow: 0,
      projectActivityPastWindow: events.length,
    });
    expect(await stats(lastEvent + 60 * DAY + 1)).toMatchObject({
      projectActivityCurrentWindow: 0,
      projectActivityPastWindow: 0,
    });
    clock = null;
  });

  it('averages the days from creation to first enabling in a production environment over recent release flags', async () => {
    const id = await createProject();
    const threeDays = uniqueName('slow');
    const oneDay = uniqueName('quick');
    const neverOn = uniqueName('off');
    const devOnly = uniqueName('dev');
    for (const name of [threeDays, oneDay, neverOn, devOnly]) await a.createFlag(id, { name });
    await t.database.session(async (run) => {
      await run(`UPDATE features SET created_at = now() - interval '3 days' WHERE name = $1`, [threeDays]);
      await run(`UPDATE features SET created_at = now() - interval '1 day' WHERE name = $1`, [oneDay]);
    });
    expect((await report(id)).stats.avgTimeToProdCurrentWindow).toBe(0);
    const on = (name: string, env: string) =>
      t.send('POST', `/api/admin/projects/${id}/features/${name}/environments/${env}/on`);
    for (const name of [threeDays, oneDay]) expect((await on(name, 'production')).statusCode).toBe(200);
    expect((await on(devOnly, 'development')).statusCode).toBe(200);
    // (3 + 1) / 2 days; flags never enabled in production do not count.
    expect((await report(id)).stats.avgTimeToProdCurrentWindow).toBe(2);
    // Enabled again later: the first enabling counts.
    await t.send('POST', `/api/admin/projects/${id}/features/${oneDay}/environments/production/off`);
    await on(oneDay, 'production');
    expect((await report(id)).stats.avgTimeToProdCurrentWindow).toBe(2);
    // Flags created more than 30 days ago are out of the window.
    clock = Date.now() + 31 * DAY;
    expect((await report(id)).stats.avgTimeToProdCurrentWindow).toBe(0);
    clock = null;
  });
});

describe('GET /api/admin/archive/features/:projectId', () => {
  it("lists the project's archived flags, newest archive first", async () => {
    const id = await createProject();
    const names = [uniqueName('a1'), uniqueName('a2'), uniqueName('a3')];
    for (const name of names) await a.createFlag(id, { name });
    // Archived in the order a2, a3, a1.
    for (const name of [names[1], names[2], names[0]])
      expect((await a.updateFlag(id, name as string, { archived: true })).statusCode).toBe(200);
    const res = await t.send('GET', `/api/admin/archive/features/${id}`);
    expect(res.headers.deprecation).toBe('true');
    expect(res.json().features.map((f: { name: string }) => f.name)).toEqual([names[0], names[2], names[1]]);
  });
});

describe('GET /api/admin/projects/:projectId/overview', () => {
  it('answers the current overview: no flags, counts per type, technical debt and onboarding', async () => {
    const id = await createProject();
    const empty = (await t.send('GET', `/api/admin/projects/${id}/overview`)).json();
    expect(empty).toMatchObject({
      version: 1,
      id,
      health: 100,
      technicalDebt: 0,
      archivedAt: null,
      linkTemplates: [],
      onboardingStatus: { status: 'onboarding-started' },
      featureTypeCounts: [],
      environments: [{ environment: 'development' }, { environment: 'production' }],
    });
    expect(empty.features).toBeUndefined();
    const first = uniqueName('first');
    await a.createFlag(id, { name: first });
    await a.createFlag(id, { name: uniqueName('ks'), type: 'kill-switch' });
    await a.createFlag(id, { name: uniqueName('ks'), type: 'kill-switch' });
    const gone = uniqueName('gone');
    await a.createFlag(id, { name: gone, type: 'experiment' });
    await a.updateFlag(id, gone, { archived: true });
    await a.updateFlag(id, first, { stale: true });
    const body = (await t.send('GET', `/api/admin/projects/${id}/overview`)).json();
    expect(body).toMatchObject({
      health: 67,
      technicalDebt: 33,
      onboardingStatus: { status: 'first-flag-created', feature: first },
      featureTypeCounts: [
        { type: 'kill-switch', count: 2 },
        { type: 'release', count: 1 },
      ],
      stats: { createdCurrentWindow: 4, archivedCurrentWindow: 1 },
    });
    expect((await t.send('GET', '/api/admin/projects/no-such-project/overview')).statusCode).toBe(404);
  });
});

describe('GET /api/admin/projects/:projectId/flag-creators', () => {
  it("lists the users who created the project's flags", async () => {
    const id = await createProject();
    const creator = await createUser(t, 'Admin', { name: 'Flag Maker' });
    const cookie = await login(t, creator.username);
    await a.createFlag(id, { name: uniqueName('by-token') });
    const res = await t.send(
      'POST',
      `/api/admin/projects/${id}/features`,
      { name: uniqueName('by-user') },
      asUser(cookie),
    );
    expect(res.statusCode).toBe(200);
    const creators = (await t.send('GET', `/api/admin/projects/${id}/flag-creators`)).json();
    expect(creators).toEqual([{ id: creator.id, name: 'Flag Maker' }]);
    expect((await t.send('GET', '/api/admin/projects/no-such-project/flag-creators')).statusCode).toBe(404);
  });
});

describe('GET /api/admin/flag-creators', () => {
  it('lists the creators of active flags in every project, filtered by q', async () => {
    const one = await createProject();
    const two = await createProject();
    const name = uniqueName('Creator Q');
    const alice = await createUser(t, 'Admin', { name: `${name} alice` });
    const bob = await createUser(t, 'Admin', { name: `${name} bob` });
    const gone = await createUser(t, 'Admin', { name: `${name} archived` });
    const create = async (user: { username: string }, project: string) => {
      const flag = uniqueName('fc');
      const res = await t.send(
        'POST',
        `/api/admin/projects/${project}/features`,
        { name: flag },
        asUser(await login(t, user.username)),
      );
      expect(res.statusCode).toBe(200);
      return flag;
    };
    await create(alice, one);
    await create(alice, two);
    await create(bob, two);
    const archived = await create(gone, one);
    expect((await t.send('DELETE', `/api/admin/projects/${one}/features/${archived}`)).statusCode).toBe(202);

    const all = await t.send('GET', `/api/admin/flag-creators?q=${encodeURIComponent(name)}`);
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({
      flagCreators: [
        { id: alice.id, name: `${name} alice` },
        { id: bob.id, name: `${name} bob` },
      ],
      total: 2,
    });
    const some = (
      await t.send('GET', `/api/admin/flag-creators?q=${encodeURIComponent(`${name} AL`)}`)
    ).json();
    expect(some).toEqual({ flagCreators: [{ id: alice.id, name: `${name} alice` }], total: 1 });
    const wild = (await t.send('GET', '/api/admin/flag-creators?q=%25')).json();
    expect(wild.flagCreators.filter((c: { name: string }) => c.name.startsWith(name))).toEqual([]);
  });
});

describe('GET /api/admin/projects/:projectId/status', () => {
  it('shows activity per day, resources, health and the lifecycle per stage', async () => {
    const id = await createProject();
    const member = await createUser(t);
    await t.send('POST', `/api/admin/projects/${id}/access`, { roles: [5], users: [{ id: member.id }] });
    await t.send('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('tok'),
      type: 'client',
      environment: 'development',
      projects: [id],
    });
    await t.send('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('all'),
      type: 'client',
      environment: 'development',
      projects: ['*'],
    });
    await t.send('POST', '/api/admin/segments', { name: uniqueName('seg'), project: id, constraints: [] });
    const [live, fresh, stale] = [uniqueName('live'), uniqueName('fresh'), uniqueName('stale')];
    for (const name of [live, fresh, stale]) await a.createFlag(id, { name });
    // Two days in the initial stage, then enabled in production: live.
    await t.database.session((run) =>
      run(`UPDATE feature_lifecycles SET created_at = now() - interval '2 days' WHERE feature_name = $1`, [
        live,
      ]),
    );
    expect(
      (await t.send('POST', `/api/admin/projects/${id}/features/${live}/environments/production/on`))
        .statusCode,
    ).toBe(200);
    await a.updateFlag(id, stale, { stale: true });

    const res = await t.send('GET', `/api/admin/projects/${id}/status`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const today = new Date().toISOString().slice(0, 10);
    const events = (await t.send('GET', `/api/admin/events?project=${id}`)).json().events.length;
    expect(body.activityCountByDate).toEqual([{ date: today, count: events }]);
    expect(body.resources).toEqual({ apiTokens: 1, members: 1, segments: 1 });
    expect(body.health).toEqual({ current: 67 });
    expect(body.technicalDebt).toEqual({ current: 33 });
    expect(body.staleFlags).toEqual({ total: 1 });
    expect(body.lifecycleSummary.initial).toEqual({ averageDays: 2, currentFlags: 2 });
    expect(body.lifecycleSummary.live.currentFlags).toBe(1);
    expect(body.lifecycleSummary.completed).toEqual({ averageDays: null, currentFlags: 0 });
    expect((await t.send('GET', '/api/admin/projects/no-such-project/status')).statusCode).toBe(404);
    // The answer is kept; a year on, with no write since, its activity has left the window.
    const activity = async () =>
      (await t.send('GET', `/api/admin/projects/${id}/status`)).json().activityCountByDate;
    clock = Date.now() + 364 * DAY;
    expect(await activity()).toEqual([{ date: today, count: events }]);
    clock = Date.now() + 366 * DAY;
    expect(await activity()).toEqual([]);
    clock = null;
  });
});
