import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { changes } from '../../changes.js';
import { testConfig } from '../../config.js';
import { progressReleasePlans } from './index.js';

/**
 * Release plans as a team rolls a flag out: a template "internal → 50% → everyone", applied to a
 * flag's production; each milestone started by hand or by its progression replaces the plan's
 * strategies there and leaves the flag's own; every step on the record.
 */
let t: TestApp;
let clock = Date.now();
const now = () => new Date(clock);
beforeAll(async () => {
  t = await startTestApp({ now });
});
afterAll(() => t.close());

const pausedReason = async () =>
  ((await api(t).lastEvent('release-plan-progressions-paused')) as { data: { reason: string } } | undefined)
    ?.data.reason;

/** One round of the progression job, as it runs, at the test's clock. */
const round = () =>
  progressReleasePlans({ deps: { database: t.database, config: testConfig(), now }, changes });

const TEMPLATES = '/api/admin/release-plan-templates';

const rollout = (percent: number) => ({
  name: 'flexibleRollout',
  sortOrder: 0,
  parameters: { rollout: String(percent), stickiness: 'default', groupId: '' },
});

async function template(name = uniqueName('rollout')) {
  const res = await t.send('POST', TEMPLATES, {
    name,
    description: 'internal, half, everyone',
    milestones: [
      {
        name: 'Internal',
        sortOrder: 0,
        strategies: [
          {
            name: 'default',
            sortOrder: 0,
            constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }],
          },
        ],
      },
      { name: 'Half', sortOrder: 1, strategies: [rollout(50)] },
      { name: 'Everyone', sortOrder: 2, strategies: [rollout(100)] },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A flag in a new project with a strategy of its own in production; its plan path. */
async function flag() {
  const project = uniqueName('rp');
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201);
  const name = uniqueName('rpflag');
  expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name })).statusCode).toBe(200);
  const env = `/api/admin/projects/${project}/features/${name}/environments/production`;
  const own = await t.send('POST', `${env}/strategies`, { name: 'default', title: 'own' });
  expect(own.statusCode, own.body).toBe(200);
  expect((await t.send('POST', `${env}/on`)).statusCode).toBe(200);
  return { project, name, env };
}

const strategiesOf = async (env: string) =>
  (await t.send('GET', `${env}/strategies`))
    .json()
    .map((s: { title: string | null; parameters: Record<string, string>; name: string }) =>
      s.title === 'own' ? 'own' : s.name === 'default' ? 'internal' : `rollout ${s.parameters.rollout}`,
    )
    .sort();

async function plan(f: { env: string }, templateId: string) {
  const res = await t.send('POST', `${f.env}/release-plans`, { templateId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('release plan templates', () => {
  it('creates, lists, changes, archives and deletes templates, each recorded', async () => {
    const made = await template();
    expect(made).toMatchObject({ discriminator: 'template', archivedAt: null });
    expect(made.milestones.map((m: { name: string }) => m.name)).toEqual(['Internal', 'Half', 'Everyone']);
    expect(made.milestones[0].strategies[0]).toMatchObject({
      name: 'default',
      strategyName: 'default',
      milestoneId: made.milestones[0].id,
    });
    expect((await t.send('GET', TEMPLATES)).json().map((x: { id: string }) => x.id)).toContain(made.id);
    const changed = await t.send('PUT', `${TEMPLATES}/${made.id}`, {
      name: made.name,
      milestones: [{ name: 'Only', sortOrder: 0, strategies: [rollout(10)] }],
    });
    expect(changed.json().milestones.map((m: { name: string }) => m.name)).toEqual(['Only']);
    expect(await api(t).lastEvent('release-plan-template-updated')).toMatchObject({
      pre_data: { milestones: [{}, {}, {}] },
    });
    expect((await t.send('POST', `${TEMPLATES}/archive/${made.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', TEMPLATES)).json().map((x: { id: string }) => x.id)).not.toContain(made.id);
    // An archived template cannot be applied, and frees its name.
    const f = await flag();
    expect((await t.send('POST', `${f.env}/release-plans`, { templateId: made.id })).statusCode).toBe(404);
    await template(made.name);
    expect((await t.send('DELETE', `${TEMPLATES}/${made.id}`)).statusCode).toBe(200);
    expect((await t.send('GET', `${TEMPLATES}/${made.id}`)).statusCode).toBe(404);
    expect(await api(t).lastEvent('release-plan-template-deleted')).toMatchObject({
      pre_data: { id: made.id },
    });
  });

  it('refuses a template that could not be used, naming the field, and stores nothing', async () => {
    const before = (await t.send('GET', TEMPLATES)).json().length;
    const cases: [unknown, string][] = [
      [{ name: 'no milestones', milestones: [] }, '/body/milestones'],
      [{ name: 'no milestones' }, 'milestones'],
      [
        {
          name: 'bad type',
          milestones: [{ name: 'm', sortOrder: 0, strategies: [{ name: 'nope', sortOrder: 0 }] }],
        },
        '/body/milestones/0/strategies/0/name',
      ],
      [
        { name: 'bad rollout', milestones: [{ name: 'm', sortOrder: 0, strategies: [rollout(150)] }] },
        '/body/milestones/0/strategies/0/parameters',
      ],
      [
        {
          name: 'bad constraint',
          milestones: [
            {
              name: 'm',
              sortOrder: 0,
              strategies: [
                { name: 'default', sortOrder: 0, constraints: [{ contextName: 'x', operator: 'NUM_GT' }] },
              ],
            },
          ],
        },
        '/body/milestones/0/strategies/0/constraints/0/value',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await t.send('POST', TEMPLATES, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(res.body, path).toContain(path);
    }
    const taken = await template();
    expect(
      (await t.send('POST', TEMPLATES, { name: taken.name, milestones: [{ name: 'm', sortOrder: 0 }] }))
        .statusCode,
    ).toBe(409);
    expect((await t.send('GET', TEMPLATES)).json().length).toBe(before + 1);
    expect(
      (
        await t.send('PUT', `${TEMPLATES}/no-such-template`, {
          name: 'x',
          milestones: [{ name: 'm', sortOrder: 0 }],
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('release plans', () => {
  it('starting a milestone replaces the plan’s strategies and keeps the flag’s own; removing the plan takes its strategies off', async () => {
    const tpl = await template();
    const f = await flag();
    const p = await plan(f, tpl.id);
    expect(p).toMatchObject({
      discriminator: 'plan',
      featureName: f.name,
      environment: 'production',
      activeMilestoneId: null,
    });
    expect(p.milestones.map((m: { id: string }) => m.id)).not.toContain(tpl.milestones[0].id);
    expect((await t.send('POST', `${f.env}/release-plans`, { templateId: tpl.id })).statusCode).toBe(409);
    const [internal, half, everyone] = p.milestones;

    const start = (m: { id: string }) =>
      t.send('POST', `${f.env}/release-plans/${p.id}/milestones/${m.id}/start`);
    expect((await start(internal)).statusCode).toBe(200);
    expect(await strategiesOf(f.env)).toEqual(['internal', 'own']);
    expect((await start(half)).statusCode).toBe(200);
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 50']);
    // The flag's own answer carries the plan on its environment, as Unleash's does.
    const shown = (await t.send('GET', `/api/admin/projects/${f.project}/features/${f.name}`)).json();
    const envs = new Map(shown.environments.map((e: { name: string }) => [e.name, e]));
    expect(envs.get('production')).toMatchObject({
      releasePlans: [{ id: p.id, activeMilestoneId: half.id }],
    });
    expect(envs.get('development')).not.toHaveProperty('releasePlans');
    // The plans are not part of the flag's ETag: a conditional write made against this read works.
    const flagUrl = `/api/admin/projects/${f.project}/features/${f.name}`;
    const etag = (await t.send('GET', flagUrl)).headers.etag as string;
    const conditional = await t.send('PUT', flagUrl, { description: 'rolling out' }, { 'if-match': etag });
    expect(conditional.statusCode, conditional.body).toBe(200);
    const started = await api(t).lastEvent('release-plan-milestone-started');
    expect(started).toMatchObject({
      feature_name: f.name,
      environment: 'production',
      data: { milestoneName: 'Half', planId: p.id },
    });
    const removed = await t.database.session((run) =>
      run(
        `SELECT count(*)::int AS n FROM events WHERE type = 'feature-strategy-remove' AND feature_name = $1`,
        [f.name],
      ),
    );
    expect(removed[0]?.n).toBe(1);
    const now = (await t.send('GET', `${f.env}/release-plans/${p.id}`)).json();
    expect(now.activeMilestoneId).toBe(half.id);
    expect(now.milestones[1].startedAt).not.toBeNull();

    // SDKs see the milestone's strategy.
    const token = await t.send('POST', '/api/admin/api-tokens', {
      type: 'client',
      tokenName: uniqueName('sdk'),
      environment: 'production',
      projects: [f.project],
    });
    const client = await t.send('GET', `/api/client/features/${f.name}`, undefined, {
      authorization: token.json().secret,
    });
    expect(
      client
        .json()
        .strategies.map((s: { name: string }) => s.name)
        .sort(),
    ).toEqual(['default', 'flexibleRollout']);

    expect((await start({ id: 'no-such-milestone' })).statusCode).toBe(404);
    // Under another project's path (where the caller's permission was checked) the plan is not found.
    const elsewhere = f.env.replace(`/projects/${f.project}/`, '/projects/default/');
    for (const [method, path] of [
      ['POST', `${elsewhere}/release-plans/${p.id}/milestones/${internal.id}/start`],
      ['DELETE', `${elsewhere}/release-plans/${p.id}`],
      ['POST', `${elsewhere}/progressions/${p.id}/pause`],
      ['GET', `${elsewhere}/release-plans/${p.id}`],
    ] as const) {
      expect((await t.send(method, path)).statusCode, `${method} ${path}`).toBe(404);
    }
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 50']);
    expect((await t.send('DELETE', `${f.env}/release-plans/${p.id}`)).statusCode).toBe(200);
    expect(await strategiesOf(f.env)).toEqual(['own']);
    expect((await t.send('GET', `${f.env}/release-plans`)).json()).toEqual([]);
    expect(everyone).toBeDefined();
  });

  it('moves on by itself when a milestone’s time has come, and pauses when the flag is off', async () => {
    const tpl = await template();
    const f = await flag();
    const p = await plan(f, tpl.id);
    const [internal, half, everyone] = p.milestones;
    const progress = (from: { id: string }, to: { id: string }, minutes: number) =>
      t.send('PUT', `${f.env}/progressions/${from.id}`, {
        targetMilestone: to.id,
        transitionCondition: { intervalMinutes: minutes },
      });
    expect((await progress(internal, half, 5)).statusCode).toBe(200);
    expect((await progress(half, everyone, 5)).statusCode).toBe(200);
    expect((await api(t).lastEvent('milestone-progression-created'))?.data).toMatchObject({
      sourceMilestone: half.id,
    });
    expect(
      (await t.send('POST', `${f.env}/release-plans/${p.id}/milestones/${internal.id}/start`)).statusCode,
    ).toBe(200);

    clock += 4 * 60_000;
    expect(await round()).toBe(0);
    expect(await strategiesOf(f.env)).toEqual(['internal', 'own']);
    clock += 2 * 60_000;
    expect(await round()).toBe(1);
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 50']);
    const moved = await api(t).lastEvent('release-plan-milestone-started');
    expect(moved).toMatchObject({ created_by: 'unleash_system_user', data: { milestoneName: 'Half' } });
    const after = (await t.send('GET', `${f.env}/release-plans/${p.id}`)).json();
    expect(after.milestones[0].progressionExecutedAt).not.toBeNull();
    expect(await round()).toBe(0);

    // Off in production: the plan pauses, saying why, and stays there until resumed.
    expect((await t.send('POST', `${f.env}/off`)).statusCode).toBe(200);
    clock += 6 * 60_000;
    expect(await round()).toBe(0);
    expect(await pausedReason()).toMatch(/off in "production"/);
    expect(
      (await t.send('GET', `${f.env}/release-plans/${p.id}`)).json().milestones[1].pausedAt,
    ).not.toBeNull();
    expect((await t.send('POST', `${f.env}/on`)).statusCode).toBe(200);
    expect(await round()).toBe(0);
    expect((await t.send('POST', `${f.env}/progressions/${p.id}/resume`)).statusCode).toBe(200);
    expect(await round()).toBe(1);
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 100']);

    // Removed: no more progression from that milestone.
    expect((await t.send('DELETE', `${f.env}/progressions/${half.id}`)).statusCode).toBe(200);
    expect((await t.send('DELETE', `${f.env}/progressions/${half.id}`)).statusCode).toBe(404);
  });

  it('pauses a progression an environment’s change requests stop', async () => {
    const tpl = await template();
    const f = await flag();
    const p = await plan(f, tpl.id);
    const [internal, half] = p.milestones;
    await t.send('PUT', `${f.env}/progressions/${internal.id}`, {
      targetMilestone: half.id,
      transitionCondition: { intervalMinutes: 1 },
    });
    expect(
      (await t.send('POST', `${f.env}/release-plans/${p.id}/milestones/${internal.id}/start`)).statusCode,
    ).toBe(200);
    const config = await t.send(
      'PUT',
      `/api/admin/projects/${f.project}/environments/production/change-requests/config`,
      {
        changeRequestsEnabled: true,
        requiredApprovals: 1,
      },
    );
    expect(config.statusCode).toBe(204);
    clock += 2 * 60_000;
    expect(await round()).toBe(0);
    expect(await pausedReason()).toMatch(/change request/i);
    expect(await strategiesOf(f.env)).toEqual(['internal', 'own']);
  });

  it('pauses the progression when a safeguard on the flag’s metrics trips', async () => {
    // At 55 minutes past an hour: the SDKs' hourly bucket began before the last hour did, and counts.
    clock = Math.ceil(clock / 3_600_000) * 3_600_000 + 55 * 60_000;
    const tpl = await template();
    const f = await flag();
    const p = await plan(f, tpl.id);
    const [internal, half] = p.milestones;
    await t.send('PUT', `${f.env}/progressions/${internal.id}`, {
      targetMilestone: half.id,
      transitionCondition: { intervalMinutes: 10 },
    });
    expect(
      (await t.send('POST', `${f.env}/release-plans/${p.id}/milestones/${internal.id}/start`)).statusCode,
    ).toBe(200);
    const guard = await t.send('PUT', `${f.env}/release-plans/${p.id}/safeguards`, {
      impactMetric: { metricName: 'no_share', timeRange: 'hour', aggregationMode: 'avg', labelSelectors: {} },
      triggerCondition: { operator: '>', threshold: 0.5 },
    });
    expect(guard.statusCode, guard.body).toBe(200);
    expect((await t.send('GET', `${f.env}/release-plans/${p.id}`)).json().safeguards).toEqual([guard.json()]);

    // SDKs report mostly `no` for the flag in production within the hour.
    const token = await t.send('POST', '/api/admin/api-tokens', {
      type: 'client',
      tokenName: uniqueName('sdk'),
      environment: 'production',
      projects: [f.project],
    });
    const bucket = {
      start: now().toISOString(),
      stop: now().toISOString(),
      toggles: { [f.name]: { yes: 2, no: 8 } },
    };
    const sent = await t.send(
      'POST',
      '/api/client/metrics',
      { appName: 'web', instanceId: 'i1', bucket },
      {
        authorization: token.json().secret,
      },
    );
    expect(sent.statusCode, sent.body).toBeLessThan(300);
    clock += 11 * 60_000;
    expect(await round()).toBe(0);
    expect(await pausedReason()).toMatch(
      /Safeguard: a share of no answers of 0.800 in the last hour is above 0.5/,
    );
    expect(await strategiesOf(f.env)).toEqual(['internal', 'own']);

    // Removed, the plan moves on once resumed.
    expect(
      (await t.send('DELETE', `${f.env}/release-plans/${p.id}/safeguards/${guard.json().id}`)).statusCode,
    ).toBe(200);
    expect((await t.send('POST', `${f.env}/progressions/${p.id}/resume`)).statusCode).toBe(200);
    expect(await round()).toBe(1);
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 50']);
    const bad = await t.send('PUT', `${f.env}/release-plans/${p.id}/safeguards`, {
      impactMetric: { metricName: 'cpu', timeRange: 'hour' },
      triggerCondition: { operator: '>', threshold: 1 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses bad progressions and unknown ids with the documented 4xx', async () => {
    const tpl = await template();
    const f = await flag();
    const p = await plan(f, tpl.id);
    const [internal, half] = p.milestones;
    const put = (body: unknown, source = internal.id) =>
      t.send('PUT', `${f.env}/progressions/${source}`, body);
    expect(
      (await put({ targetMilestone: half.id, transitionCondition: { intervalMinutes: 0 } })).statusCode,
    ).toBe(400);
    expect(
      (await put({ targetMilestone: internal.id, transitionCondition: { intervalMinutes: 5 } })).statusCode,
    ).toBe(400);
    expect(
      (await put({ targetMilestone: 'elsewhere', transitionCondition: { intervalMinutes: 5 } })).statusCode,
    ).toBe(400);
    expect(
      (await put({ targetMilestone: half.id, transitionCondition: { intervalMinutes: 5 } }, 'unknown'))
        .statusCode,
    ).toBe(404);
    expect((await t.send('GET', `${f.env}/release-plans/unknown`)).statusCode).toBe(404);
    expect((await t.send('POST', `${f.env}/progressions/${p.id}/resume`)).statusCode).toBe(400);
    expect(
      (
        await t.send(
          'POST',
          `/api/admin/projects/${f.project}/features/nope/environments/production/release-plans`,
          { templateId: tpl.id },
        )
      ).statusCode,
    ).toBe(404);
    expect((await t.send('POST', `${f.env}/release-plans`, { templateId: 'unknown' })).statusCode).toBe(404);
    expect(
      await api(t).count('release_plan_milestones', 'plan_id = $1 AND progression_target IS NOT NULL', [
        p.id,
      ]),
    ).toBe(0);
  });
});

describe('release plans under change requests', () => {
  /** A Member who proposes and an Owner who reviews, in the flag's project. */
  async function people(project: string) {
    const person = async (role: number) => {
      const user = await createUser(t, 'Viewer');
      const granted = await t.send('POST', `/api/admin/projects/${project}/access`, {
        roles: [role],
        users: [{ id: user.id }],
      });
      expect(granted.statusCode).toBe(200);
      return asUser(await login(t, user.username));
    };
    return { author: await person(5), approver: await person(4) };
  }

  it('adds a plan, starts a milestone and sets its progression only through an approved change request', async () => {
    const tpl = await template();
    const f = await flag();
    const { author, approver } = await people(f.project);
    const configured = await t.send(
      'PUT',
      `/api/admin/projects/${f.project}/environments/production/change-requests/config`,
      { changeRequestsEnabled: true, requiredApprovals: 1 },
    );
    expect(configured.statusCode).toBe(204);
    const drafts = `/api/admin/projects/${f.project}/environments/production/change-requests`;
    const requests = `/api/admin/projects/${f.project}/change-requests`;
    const propose = async (changes: unknown[]) => {
      const res = await t.send('POST', drafts, changes, author);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const approveAndApply = async (id: number) => {
      expect(
        (await t.send('PUT', `${requests}/${id}/state`, { state: 'In review' }, author)).statusCode,
      ).toBe(200);
      const approved = await t.send('PUT', `${requests}/${id}/state`, { state: 'Approved' }, approver);
      expect(approved.statusCode, approved.body).toBe(200);
      return t.send('PUT', `${requests}/${id}/state`, { state: 'Applied' }, approver);
    };

    // Directly, the Member is refused and nothing is added.
    const direct = await t.send('POST', `${f.env}/release-plans`, { templateId: tpl.id }, author);
    expect(direct.statusCode).toBe(403);
    expect(direct.json().message).toMatch(/change request/i);
    expect((await t.send('GET', `${f.env}/release-plans`)).json()).toEqual([]);

    // Proposed, it is added when applied.
    const adding = await propose([
      { feature: f.name, action: 'addReleasePlan', payload: { templateId: tpl.id } },
    ]);
    expect(adding.features[0].changes[0]).toMatchObject({ action: 'addReleasePlan' });
    expect((await t.send('GET', `${f.env}/release-plans`)).json()).toEqual([]);
    expect((await approveAndApply(adding.id)).statusCode).toBe(200);
    const [p] = (await t.send('GET', `${f.env}/release-plans`)).json();
    const [internal, half, everyone] = p.milestones;

    // Starting a milestone and its progression, in one request, made against the plan as it was.
    const starting = await propose([
      { feature: f.name, action: 'startMilestone', payload: { milestoneId: internal.id } },
      {
        feature: f.name,
        action: 'changeMilestoneProgression',
        payload: {
          sourceMilestone: internal.id,
          targetMilestone: half.id,
          transitionCondition: { intervalMinutes: 5 },
        },
      },
    ]);
    expect(starting.features[0].changes[0].payload.snapshot).toMatchObject({
      id: p.id,
      activeMilestoneId: null,
    });
    expect(await strategiesOf(f.env)).toEqual(['own']);
    expect((await approveAndApply(starting.id)).statusCode).toBe(200);
    expect(await strategiesOf(f.env)).toEqual(['internal', 'own']);
    const started = (await t.send('GET', `${f.env}/release-plans/${p.id}`)).json();
    expect(started.activeMilestoneId).toBe(internal.id);
    expect(started.milestones[0].transitionCondition).toEqual({ intervalMinutes: 5 });

    // A start proposed against "Internal" conflicts once the plan moved on without it.
    const late = await propose([
      { feature: f.name, action: 'startMilestone', payload: { milestoneId: half.id } },
    ]);
    const admin = await t.send('POST', `${f.env}/release-plans/${p.id}/milestones/${everyone.id}/start`);
    expect(admin.statusCode).toBe(200);
    const seen = (await t.send('GET', `${requests}/${late.id}`, undefined, author)).json();
    expect(seen.features[0].changes[0].conflict).toContain('changed since');
    expect((await approveAndApply(late.id)).statusCode).toBe(409);
    expect(await strategiesOf(f.env)).toEqual(['own', 'rollout 100']);

    // An unknown milestone is refused when proposed, naming it.
    const unknown = await t.send(
      'POST',
      drafts,
      [{ feature: f.name, action: 'startMilestone', payload: { milestoneId: 'nope' } }],
      author,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toContain('nope');
  });
});
