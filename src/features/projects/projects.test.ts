import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { checkPotentialStaleness } from '../flags/index.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

interface Ev {
  type: string;
  project: string | null;
  featureName: string | null;
  environment: string | null;
  data: Record<string, unknown> | null;
  preData: Record<string, unknown> | null;
}
const projectEvents = async (id: string) =>
  (await t.request({ method: 'GET', url: `/api/admin/events?project=${id}` })).json().events as Ev[];
const createProject = async (body: Record<string, unknown> = {}) => {
  const id = (body.id as string) ?? uniqueName('proj');
  const res = await t.send('POST', '/api/admin/projects', { id, name: `Project ${id}`, ...body });
  if (res.statusCode !== 201) throw new Error(`createProject ${res.statusCode}: ${res.body}`);
  return id;
};
const listed = async (id: string) =>
  (await t.send('GET', '/api/admin/projects')).json().projects.find((p: { id: string }) => p.id === id);

describe('POST /api/admin/projects', () => {
  it('creates a project with every enabled environment and records project-created', async () => {
    const id = uniqueName('proj');
    const res = await t.send('POST', '/api/admin/projects', {
      id,
      name: 'Checkout',
      description: 'team',
      mode: 'protected',
      defaultStickiness: 'userId',
      featureLimit: 5,
      featureNaming: { pattern: '[a-z]+-[0-9]+', example: 'abc-1', description: 'word-number' },
    });
    expect(res.statusCode).toBe(201);
    const created = {
      id,
      name: 'Checkout',
      description: 'team',
      mode: 'protected',
      defaultStickiness: 'userId',
      featureLimit: 5,
      featureNaming: { pattern: '[a-z]+-[0-9]+', example: 'abc-1', description: 'word-number' },
      environments: ['development', 'production'],
    };
    expect(res.json()).toEqual(created);
    const events = await projectEvents(id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'project-created', project: id, data: created, preData: null });
    expect(await a.count('project_environments', 'project_id = $1', [id])).toBe(2);
  });

  it('applies defaults, derives an id from the name, and a fresh project works for flags', async () => {
    const name = `Hello World ${uniqueName('x')}`;
    const res = await t.send('POST', '/api/admin/projects', { name });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.id).toBe(name.toLowerCase().replace(/ /g, '-'));
    expect(body).toMatchObject({
      description: null,
      mode: 'open',
      defaultStickiness: 'default',
      featureLimit: null,
    });
    const again = await t.send('POST', '/api/admin/projects', { name });
    expect(again.json().id).toBe(`${body.id}-2`);
    const flag = await a.createFlag(body.id, { name: uniqueName() });
    expect((flag.environments as unknown[]).length).toBe(2);
  });

  it('gives a new project only enabled environments, or the ones listed', async () => {
    const env = uniqueName('env');
    await t.send('POST', '/api/admin/environments', { name: env, type: 'test', enabled: false });
    const id = await createProject();
    const envs = (await t.send('GET', `/api/admin/projects/${id}`)).json().environments;
    expect(envs.map((e: { environment: string }) => e.environment)).toEqual(['development', 'production']);
    const chosen = await createProject({ environments: [env] });
    expect((await t.send('GET', `/api/admin/projects/${chosen}`)).json().environments).toEqual([
      { environment: env },
    ]);
  });

  it('answers 409 NameExistsError for a taken id and changes nothing', async () => {
    const id = await createProject();
    const before = await a.count('events');
    const res = await t.send('POST', '/api/admin/projects', { id, name: 'Other' });
    expect(res.statusCode).toBe(409);
    expect(res.json().name).toBe('NameExistsError');
    expect((await listed(id)).name).toBe(`Project ${id}`);
    expect(await a.count('events')).toBe(before);
  });

  it('answers 404 for an unknown environment in the list, leaving no project', async () => {
    const id = uniqueName('proj');
    const res = await t.send('POST', '/api/admin/projects', { id, name: 'x', environments: ['nope-env'] });
    expect(res.statusCode).toBe(404);
    expect(res.json().name).toBe('NotFoundError');
    expect(await a.count('projects', 'id = $1', [id])).toBe(0);
  });

  it.each([
    ['a bad id', { id: 'has space' }, '/body/id'],
    ['id "."', { id: '.' }, '/body/id'],
    ['a missing name', { name: undefined }, '/body/name'],
    ['an empty name', { name: '' }, '/body/name'],
    ['an unknown mode', { mode: 'secret' }, '/body/mode'],
    ['a negative featureLimit', { featureLimit: -1 }, '/body/featureLimit'],
    ['a pattern that does not compile', { featureNaming: { pattern: '[a-' } }, '/body/featureNaming/pattern'],
    ['a pattern with a space', { featureNaming: { pattern: 'a b' } }, '/body/featureNaming/pattern'],
    ['a pattern with \\s', { featureNaming: { pattern: 'a\\sb' } }, '/body/featureNaming/pattern'],
    ['a pattern with \\t', { featureNaming: { pattern: 'a\\tb' } }, '/body/featureNaming/pattern'],
    ['a lookahead (not RE2)', { featureNaming: { pattern: '(?=a)a' } }, '/body/featureNaming/pattern'],
    [
      'an example not matching',
      { featureNaming: { pattern: '[a-z]+', example: 'ABC' } },
      '/body/featureNaming/example',
    ],
    [
      'an example without pattern',
      { featureNaming: { pattern: null, example: 'x' } },
      '/body/featureNaming/example',
    ],
    [
      'a description without pattern',
      { featureNaming: { pattern: '', description: 'd' } },
      '/body/featureNaming/description',
    ],
  ])('refuses %s with 400 naming the field', async (_label, patch, path) => {
    const id = uniqueName('proj');
    const before = await a.count('events');
    const res = await t.send('POST', '/api/admin/projects', { id, name: 'n', ...patch });
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await a.count('projects', 'id = $1', [id])).toBe(0);
    expect(await a.count('events')).toBe(before);
  });

  it('answers 401 without a token', async () => {
    const res = await t.send(
      'POST',
      '/api/admin/projects',
      { id: uniqueName('p'), name: 'n' },
      { authorization: undefined },
    );
    expect(res.statusCode).toBe(401);
    expect(res.json().name).toBe('AuthenticationRequired');
  });
});

describe('GET /api/admin/projects', () => {
  it('lists projects with live counts and health', async () => {
    const id = await createProject();
    const fresh = uniqueName();
    const staleFlag = uniqueName();
    const archived = uniqueName();
    await a.createFlag(id, { name: fresh, type: 'kill-switch' });
    await a.createFlag(id, { name: staleFlag });
    await a.createFlag(id, { name: archived });
    const old = uniqueName();
    await a.createFlag(id, { name: old, type: 'operational' });
    await a.updateFlag(id, staleFlag, { stale: true });
    await a.updateFlag(id, archived, { archived: true });
    // An operational flag (lifetime 7 days) created 10 days ago is potentially stale.
    await t.database.session((run) =>
      run(
        `UPDATE features SET created_at = now() - interval '10 days' WHERE project = $1 AND type = 'operational'`,
        [id],
      ),
    );
    // Potential staleness is marked by the job (docs/api.md §5); its next round finds the flag.
    await checkPotentialStaleness({ database: t.database, now: () => new Date() });
    const p = await listed(id);
    expect(p).toMatchObject({
      id,
      name: `Project ${id}`,
      description: null,
      featureCount: 3,
      health: 33,
      technicalDebt: 67,
      memberCount: 0,
      archivedAt: null,
      mode: 'open',
      favorite: false,
      owners: [{ ownerType: 'system' }],
      // The oldest flag is the first one.
      onboardingStatus: { status: 'first-flag-created', feature: old },
      lastReportedFlagUsage: null,
    });
    expect(Date.parse(p.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(p.lastUpdatedAt)).toBeGreaterThan(Date.now() - 60_000);
    const res = await t.send('GET', '/api/admin/projects');
    expect(res.json().version).toBe(1);
  });

  it('answers 401 without a token', async () => {
    expect(
      (await t.send('GET', '/api/admin/projects', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });
});

describe('GET /api/admin/projects/:projectId (deprecated overview)', () => {
  it('shows settings, environments and non-archived flags, with a Deprecation header', async () => {
    const id = await createProject({ featureLimit: 10 });
    const active = uniqueName();
    const archived = uniqueName();
    await a.createFlag(id, { name: active, description: 'd', tags: [{ type: 'simple', value: 'tagged' }] });
    await a.createFlag(id, { name: archived });
    await a.updateFlag(id, archived, { archived: true });
    const res = await t.send('GET', `/api/admin/projects/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    const body = res.json();
    expect(body).toMatchObject({
      version: 1,
      id,
      name: `Project ${id}`,
      featureLimit: 10,
      featureNaming: { pattern: null, example: null, description: null },
      members: 0,
      health: 100,
      favorite: false,
      environments: [{ environment: 'development' }, { environment: 'production' }],
      stats: {
        avgTimeToProdCurrentWindow: 0,
        createdCurrentWindow: 2,
        createdPastWindow: 0,
        archivedCurrentWindow: 1,
        archivedPastWindow: 0,
        projectMembersAddedCurrentWindow: 0,
      },
    });
    expect(body.stats.projectActivityCurrentWindow).toBeGreaterThanOrEqual(4);
    expect(body.features).toHaveLength(1);
    expect(body.features[0]).toMatchObject({
      name: active,
      description: 'd',
      type: 'release',
      stale: false,
      impressionData: false,
      favorite: false,
      lastSeenAt: null,
      segments: [],
      tags: [{ type: 'simple', value: 'tagged' }],
    });
    expect(body.features[0].environments[1]).toEqual({
      name: 'production',
      enabled: false,
      type: 'production',
      sortOrder: 3,
      variantCount: 0,
      lastSeenAt: null,
      hasStrategies: false,
      hasEnabledStrategies: false,
    });
    const arch = (await t.send('GET', `/api/admin/projects/${id}?archived=true`)).json();
    expect(arch.features.map((f: { name: string }) => f.name)).toEqual([archived]);
  });

  it('answers 404 for an unknown project and 401 without a token', async () => {
    const res = await t.send('GET', '/api/admin/projects/no-such-project');
    expect(res.statusCode).toBe(404);
    expect(res.json().name).toBe('NotFoundError');
    expect(
      (await t.send('GET', '/api/admin/projects/default', undefined, { authorization: undefined }))
        .statusCode,
    ).toBe(401);
  });
});
