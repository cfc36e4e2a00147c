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

const create = (body: unknown, project = 'default', headers: Record<string, string | undefined> = {}) =>
  t.request({
    method: 'POST',
    url: `/api/admin/projects/${project}/features`,
    payload: body as object,
    headers,
  });

describe('POST /api/admin/projects/:projectId/features', () => {
  it('creates a flag with defaults and answers 200 with the Flag', async () => {
    const name = uniqueName();
    const res = await create({ name });
    expect(res.statusCode).toBe(200);
    const flag = res.json();
    expect(flag).toMatchObject({
      name,
      type: 'release',
      description: null,
      project: 'default',
      archived: false,
      archivedAt: null,
      stale: false,
      favorite: false,
      impressionData: false,
      lifecycle: { stage: 'initial' },
      children: [],
      dependencies: [],
      tags: [],
      createdBy: { id: -42, name: 'admin' },
    });
    expect(Date.parse(flag.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(flag.environments.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled])).toEqual([
      ['development', false],
      ['production', false],
    ]);
    expect(flag.environments[0]).toMatchObject({
      featureName: name,
      environment: 'development',
      type: 'development',
      strategies: [],
      variants: [],
      variantCount: 0,
      hasStrategies: false,
      hasEnabledStrategies: false,
    });
  });

  it('keeps every field sent and records feature-created with the flag as data', async () => {
    const name = uniqueName();
    const res = await create({
      name,
      type: 'kill-switch',
      description: 'a switch',
      impressionData: true,
      tags: [{ type: 'simple', value: 'team-a' }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'kill-switch',
      description: 'a switch',
      impressionData: true,
      tags: [{ type: 'simple', value: 'team-a' }],
    });
    const { events, totalEvents } = await a.flagEvents(name);
    expect(totalEvents).toBe(1);
    expect(events[0]).toMatchObject({
      type: 'feature-created',
      createdBy: 'admin',
      createdByUserId: -42,
      project: 'default',
      featureName: name,
      data: { name, type: 'kill-switch', description: 'a switch', impressionData: true, project: 'default' },
      preData: null,
      tags: [{ type: 'simple', value: 'team-a' }],
    });
  });

  // A create without tags records its event in the flag's own statement, with tags in a
  // transaction: both must record the flag exactly as the create answered it.
  it.each([
    ['without tags or description', undefined, []],
    ['with a description and tags', 'd', [{ type: 'simple', value: 'team-b' }]],
  ])('records feature-created %s with the flag as answered', async (_label, description, tags) => {
    const name = uniqueName();
    const res = await create({ name, ...(description !== undefined && { description }), tags });
    expect(res.statusCode).toBe(200);
    const flag = res.json();
    const { events } = await a.flagEvents(name);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toEqual({
      name,
      description: description ?? null,
      type: 'release',
      project: 'default',
      stale: false,
      createdAt: flag.createdAt,
      impressionData: false,
      archived: false,
      archivedAt: null,
    });
    expect((events[0] as { tags?: unknown } | undefined)?.tags).toEqual(tags);
    expect((await a.getFlag('default', name)).json().createdAt).toBe(flag.createdAt);
  });

  it('accepts every URL-safe character and 100 characters', async () => {
    for (const name of ["a-b_c.d!e~f*g'h(i)j", 'x'.repeat(100)]) {
      expect((await create({ name })).statusCode).toBe(200);
    }
  });

  it.each([
    ['empty', ''],
    ['101 characters', 'y'.repeat(101)],
    ['a space', 'has space'],
    ['a slash', 'a/b'],
    ['non-ASCII', 'café'],
    ['"."', '.'],
    ['".."', '..'],
  ])('refuses a name with %s (400, nothing stored)', async (_label, name) => {
    const before = await a.count('features');
    const res = await create({ name });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ name: 'ValidationError' });
    expect(res.json().details[0].path).toBe('/body/name');
    expect(await a.count('features')).toBe(before);
  });

  it('refuses wrong types without coercing them, listing every failing field', async () => {
    const res = await create({ name: 123, type: 'banana', impressionData: 'true', description: 5 });
    expect(res.statusCode).toBe(400);
    const paths = res
      .json()
      .details.map((d: { path: string }) => d.path)
      .sort();
    expect(paths).toEqual(['/body/description', '/body/impressionData', '/body/name', '/body/type']);
    expect(res.json().id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a missing name', async () => {
    const res = await create({ type: 'release' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ path: '/body/name' })]);
  });

  it('answers 409 for a taken name, also when that flag is archived, in any project', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    const dup = await create({ name });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      name: 'NameExistsError',
      message: 'A flag with that name already exists',
    });

    await a.updateFlag('default', name, { archived: true });
    const archivedDup = await create({ name });
    expect(archivedDup.statusCode).toBe(409);
    expect(archivedDup.json().message).toBe('An archived flag with that name already exists');
    expect((await a.flagEvents(name)).events.map((e) => e.type)).toEqual([
      'feature-archived',
      'feature-created',
    ]);
  });

  it('answers 404 for an unknown project and stores nothing', async () => {
    const name = uniqueName();
    const res = await create({ name }, 'no-such-project');
    expect(res.statusCode).toBe(404);
    expect(res.json().name).toBe('NotFoundError');
    expect(await a.count('features', 'name = $1', [name])).toBe(0);
    expect(await a.count('events', 'feature_name = $1', [name])).toBe(0);
  });

  it("enforces the project's naming pattern and flag limit", async () => {
    const project = uniqueName('proj');
    await t.database.session((run) =>
      run(
        `INSERT INTO projects (id, name, feature_limit, feature_naming_pattern, feature_naming_example)
         VALUES ($1, $1, 1, '[a-z]+-[0-9]+', 'abc-1')`,
        [project],
      ),
    );
    const bad = await create({ name: 'Nope' }, project);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ path: '/body/name' });
    expect(bad.json().message).toContain('abc-1');

    expect((await create({ name: `ok-${Date.now()}` }, project)).statusCode).toBe(200);
    const overLimit = await create({ name: `ok-${Date.now() + 1}` }, project);
    expect(overLimit.statusCode).toBe(403);
    expect(overLimit.json().name).toBe('InvalidOperationError');
  });

  it('checks a naming pattern without a flag limit too, and refuses an archived project with 404', async () => {
    const patterned = uniqueName('proj');
    const archived = uniqueName('proj');
    await t.database.session(async (run) => {
      await run(`INSERT INTO projects (id, name, feature_naming_pattern) VALUES ($1, $1, 'x-[0-9]+')`, [
        patterned,
      ]);
      await run(`INSERT INTO projects (id, name, archived_at) VALUES ($1, $1, now())`, [archived]);
    });
    const refused = uniqueName();
    const bad = await create({ name: refused }, patterned);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ path: '/body/name' });
    expect(await a.count('features', 'name = $1', [refused])).toBe(0);
    expect((await create({ name: `x-${Date.now()}` }, patterned)).statusCode).toBe(200);

    const name = uniqueName();
    const gone = await create({ name }, archived);
    expect(gone.statusCode).toBe(404);
    expect(await a.count('features', 'name = $1', [name])).toBe(0);
    expect(await a.count('events', 'feature_name = $1', [name])).toBe(0);
  });

  it('holds a flag limit in a project without a naming pattern', async () => {
    const limited = uniqueName('proj');
    await t.database.session((run) =>
      run('INSERT INTO projects (id, name, feature_limit) VALUES ($1, $1, 1)', [limited]),
    );
    expect((await create({ name: uniqueName() }, limited)).statusCode).toBe(200);
    const name = uniqueName();
    const over = await create({ name }, limited);
    expect(over.statusCode).toBe(403);
    expect(over.json().name).toBe('InvalidOperationError');
    expect(await a.count('features', 'name = $1', [name])).toBe(0);
    expect(await a.count('events', 'feature_name = $1', [name])).toBe(0);
  });

  it('creates one disabled environment row per project environment only', async () => {
    const project = uniqueName('proj');
    await t.database.session(async (run) => {
      await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [project]);
      await run(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, 'production')`, [
        project,
      ]);
    });
    const name = uniqueName();
    const res = await create({ name }, project);
    expect(res.json().environments.map((e: { name: string }) => e.name)).toEqual(['production']);
  });

  it('refuses a tag of an unknown tag type with 404 and rolls the flag back', async () => {
    const name = uniqueName();
    const res = await create({ name, tags: [{ type: 'nope', value: 'abc' }] });
    expect(res.statusCode).toBe(404);
    expect(await a.count('features', 'name = $1', [name])).toBe(0);
    expect(await a.count('events', 'feature_name = $1', [name])).toBe(0);
  });

  it('answers 401 without a token or with an unknown token, before anything else', async () => {
    const none = await create({ name: 5 }, 'default', { authorization: undefined });
    expect(none.statusCode).toBe(401);
    expect(none.json().name).toBe('AuthenticationRequired');
    const wrong = await create({ name: uniqueName() }, 'default', { authorization: '*:*.not-a-real-token' });
    expect(wrong.statusCode).toBe(401);
  });

  it('answers 415 for a non-JSON body, before validating it', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/projects/default/features',
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().name).toBe('ContentTypeerror');
    const charset = await t.request({
      method: 'POST',
      url: '/api/admin/projects/default/features',
      payload: JSON.stringify({ name: uniqueName() }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.statusCode).toBe(200);
  });
});

describe('GET /api/admin/projects/:projectId/features/:featureName', () => {
  it('returns the flag as created', async () => {
    const name = uniqueName();
    const created = await a.createFlag('default', { name, description: 'd' });
    const res = await a.getFlag('default', name);
    expect(res.statusCode).toBe(200);
    // Only GET of one flag says who changed it; the admin token is no user.
    expect(res.json()).toEqual({ ...created, collaborators: { users: [] } });
  });

  it('lists the users who changed the flag as collaborators, the latest first', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    const [first, second] = [await createUser(t, 'Editor'), await createUser(t, 'Editor')];
    const change = async (who: { username: string }, description: string) => {
      const cookie = await login(t, who.username);
      const res = await t.send(
        'PUT',
        `/api/admin/projects/default/features/${name}`,
        { description },
        asUser(cookie),
      );
      expect(res.statusCode, res.body).toBe(200);
    };
    await change(first, 'one');
    await change(second, 'two');
    const shown = (await a.getFlag('default', name)).json().collaborators.users;
    expect(shown.map((u: { id: number }) => u.id)).toEqual([second.id, first.id]);
    expect(shown[0]).toEqual({
      id: second.id,
      name: second.username,
      imageUrl: expect.stringMatching(/^https:/),
    });
    await change(first, 'three');
    const again = (await a.getFlag('default', name)).json().collaborators.users;
    expect(again.map((u: { id: number }) => u.id)).toEqual([first.id, second.id]);
  });

  it("finds collaborators among the flag's latest 1,000 events only", async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    const [early, late] = [await createUser(t, 'Editor'), await createUser(t, 'Editor')];
    const cookie = await login(t, early.username);
    const path = `/api/admin/projects/default/features/${name}`;
    expect((await t.send('PUT', path, { description: 'early' }, asUser(cookie))).statusCode).toBe(200);
    // A long history since (written directly: 1,000 changes through HTTP would only be slower).
    await t.database.session((run) =>
      run(
        `INSERT INTO events (type, created_by, created_by_user_id, feature_name, project)
         SELECT 'feature-metadata-updated', $1, $2, $3, 'default' FROM generate_series(1, 1000)`,
        [late.username, late.id, name],
      ),
    );
    const shown = (await a.getFlag('default', name)).json().collaborators.users;
    expect(shown.map((u: { id: number }) => u.id)).toEqual([late.id]);
  });

  it('answers 404 for an unknown flag and for a flag of another project', async () => {
    const missing = await a.getFlag('default', 'no-such-flag');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().name).toBe('NotFoundError');
    const name = uniqueName();
    await a.createFlag('default', { name });
    const elsewhere = await a.getFlag('other', name);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().message).toContain('"default"');
  });
});

describe('PUT /api/admin/projects/:projectId/features/:featureName', () => {
  it('changes only the properties sent and records feature-metadata-updated', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name, description: 'before', type: 'experiment', impressionData: true });
    const res = await a.updateFlag('default', name, { description: 'after' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ description: 'after', type: 'experiment', impressionData: true });
    const [event] = (await a.flagEvents(name)).events;
    expect(event).toMatchObject({
      type: 'feature-metadata-updated',
      data: { description: 'after', type: 'experiment' },
      preData: { description: 'before', type: 'experiment' },
    });
  });

  it('answers the flag as a GET then shows it, every part of it, with the same ETag', async () => {
    // PGlite builds this answer within the write's own statement, PostgreSQL reads it after.
    const parent = uniqueName();
    const name = uniqueName();
    await a.createFlag('default', { name: parent });
    await a.createFlag('default', { name, description: 'before' });
    const flagPath = `/api/admin/projects/default/features/${name}`;
    const segment = async () =>
      (await t.send('POST', '/api/admin/segments', { name: uniqueName('seg'), constraints: [] })).json().id;
    const [first, second] = [await segment(), await segment()];
    const setUp = [
      await t.send('POST', `${flagPath}/environments/development/strategies`, {
        name: 'flexibleRollout',
        parameters: { rollout: '40', stickiness: 'default', groupId: name },
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
        variants: [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default' }],
        segments: [second, first],
      }),
      await t.send('PUT', `${flagPath}/environments/production/variants`, [
        { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' },
      ]),
      await t.send('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'put-answer' }),
      await t.send('POST', `${flagPath}/link`, { url: 'https://example.com/put', title: 'docs' }),
      await t.send('POST', `${flagPath}/dependencies`, { feature: parent }),
    ];
    expect(setUp.map((res) => res.statusCode).every((status) => status < 300)).toBe(true);

    const res = await a.updateFlag('default', name, { description: 'after', stale: true });
    const get = await t.send('GET', flagPath);
    expect(res.statusCode).toBe(200);
    // The PUT answers the flag as GET shows it, but for who changed it (GET of one flag only).
    const { collaborators: _, ...shown } = get.json();
    expect(res.json()).toEqual(shown);
    expect(res.json()).toMatchObject({ description: 'after', stale: true, tags: [{ value: 'put-answer' }] });
    const development = res.json().environments.find((e: { name: string }) => e.name === 'development');
    expect(development.strategies[0].segments).toEqual([first, second].sort((x, y) => x - y));
    expect(res.headers.etag).toBe(get.headers.etag);
  });

  it('clears the description with null', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name, description: 'x' });
    expect((await a.updateFlag('default', name, { description: null })).json().description).toBeNull();
  });

  it('records no event for a change that changes nothing', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name, type: 'operational' });
    expect((await a.updateFlag('default', name, { type: 'operational' })).statusCode).toBe(200);
    expect((await a.flagEvents(name)).events.map((e) => e.type)).toEqual(['feature-created']);
  });

  it('marks stale on and off with their events', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    expect((await a.updateFlag('default', name, { stale: true })).json().stale).toBe(true);
    expect((await a.updateFlag('default', name, { stale: false })).json().stale).toBe(false);
    expect((await a.flagEvents(name)).events.map((e) => e.type)).toEqual([
      'feature-stale-off',
      'feature-stale-on',
      'feature-created',
    ]);
  });

  it("records a metadata change and a staleness flip of one PUT in order, each with the flag's tags", async () => {
    const name = uniqueName();
    const tags = [{ type: 'simple', value: 'team-a' }];
    await a.createFlag('default', { name, description: 'before', tags });
    const res = await a.updateFlag('default', name, { description: 'after', stale: true });
    expect(res.json()).toMatchObject({ description: 'after', stale: true });
    // Newest first: the staleness event was recorded after the metadata event.
    const [staleOn, metadata] = (await a.flagEvents(name)).events;
    expect(metadata).toMatchObject({
      type: 'feature-metadata-updated',
      project: 'default',
      data: { name, project: 'default', description: 'after', type: 'release', impressionData: false },
      preData: { name, project: 'default', description: 'before', type: 'release', impressionData: false },
      tags,
    });
    expect(staleOn).toMatchObject({
      type: 'feature-stale-on',
      data: { stale: true },
      preData: { stale: false },
      tags,
    });
  });

  it('archives with archivedAt and feature-archived, and revives with feature-revived', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    const archived = await a.updateFlag('default', name, { archived: true });
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ archived: true, lifecycle: { stage: 'archived' } });
    expect(Date.parse(archived.json().archivedAt)).toBeGreaterThan(Date.now() - 60_000);

    const again = await a.updateFlag('default', name, { archived: true });
    expect(again.json().archivedAt).toBe(archived.json().archivedAt);

    const revived = await a.updateFlag('default', name, { archived: false });
    expect(revived.json()).toMatchObject({
      archived: false,
      archivedAt: null,
      lifecycle: { stage: 'initial' },
    });
    expect((await a.flagEvents(name)).events.map((e) => e.type)).toEqual([
      'feature-revived',
      'feature-archived',
      'feature-created',
    ]);
  });

  it('refuses a different name in the body, wrong types and unknown types (400, unchanged)', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name, description: 'keep' });
    for (const body of [{ name: 'other' }, { stale: 'yes' }, { type: 'banana' }, { description: 7 }]) {
      const res = await a.updateFlag('default', name, { description: 'changed', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect((await a.getFlag('default', name)).json().description).toBe('keep');
    expect((await a.flagEvents(name)).totalEvents).toBe(1);
  });

  it('answers 404 for an unknown flag or the wrong project', async () => {
    expect((await a.updateFlag('default', 'no-such-flag', { stale: true })).statusCode).toBe(404);
    const name = uniqueName();
    await a.createFlag('default', { name });
    const wrong = await a.updateFlag('elsewhere', name, { stale: true });
    expect(wrong.statusCode).toBe(404);
    expect((await a.getFlag('default', name)).json().stale).toBe(false);
  });

  it('answers 415 for a text body and 401 without a token', async () => {
    const name = uniqueName();
    await a.createFlag('default', { name });
    const text = await t.request({
      method: 'PUT',
      url: `/api/admin/projects/default/features/${name}`,
      payload: 'stale',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    const anonymous = await t.request({
      method: 'PUT',
      url: `/api/admin/projects/default/features/${name}`,
      payload: { stale: true },
      headers: { authorization: undefined },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('archiving a parent flag', () => {
  it('is refused by PUT archived:true as by DELETE while a child depends on it (403, unchanged)', async () => {
    const parent = uniqueName('parent');
    const child = uniqueName('child');
    await a.createFlag('default', { name: parent });
    await a.createFlag('default', { name: child });
    await t.database.session((run) =>
      run('INSERT INTO feature_dependencies (parent, child) VALUES ($1, $2)', [parent, child]),
    );
    const res = await a.updateFlag('default', parent, { archived: true, description: 'changed' });
    expect(res.statusCode).toBe(403);
    expect(res.json().name).toBe('InvalidOperationError');
    const after = (await a.getFlag('default', parent)).json();
    expect(after).toMatchObject({ archived: false, description: null });
    expect((await a.flagEvents(parent)).events.map((e) => e.type)).toEqual(['feature-created']);
  });
});
