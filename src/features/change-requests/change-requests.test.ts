import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { changes } from '../../changes.js';
import { testConfig } from '../../config.js';
import { applyDueChangeRequests } from './index.js';

/**
 * Change requests through the API as two people use them: a Member proposes changes in an
 * environment that requires them, an Owner reviews and applies; the flag changes only then, and
 * every step is on the record.
 */
let t: TestApp;
let clock = Date.now();
const now = () => new Date(clock);
beforeAll(async () => {
  t = await startTestApp({ now });
});
/** One round of the scheduler, as the job runs it, at the test's clock. */
const scheduler = () =>
  applyDueChangeRequests({ deps: { database: t.database, config: testConfig(), now }, changes });
afterAll(() => t.close());

interface Team {
  project: string;
  flag: string;
  author: Record<string, string | undefined>;
  approver: Record<string, string | undefined>;
  approverId: number;
  authorId: number;
  second: Record<string, string | undefined>;
  base: string;
}

/** A project whose production requires `approvals` approvals, a flag in it, a Member and two Owners. */
async function team(approvals = 1): Promise<Team> {
  const project = uniqueName('cr');
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(201);
  const flag = uniqueName('crflag');
  expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag })).statusCode).toBe(
    200,
  );
  const ids: number[] = [];
  const person = async (role: number) => {
    const user = await createUser(t, 'Viewer');
    ids.push(user.id);
    const granted = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [role],
      users: [{ id: user.id }],
    });
    expect(granted.statusCode).toBe(200);
    return asUser(await login(t, user.username));
  };
  const configured = await t.send(
    'PUT',
    `/api/admin/projects/${project}/environments/production/change-requests/config`,
    { changeRequestsEnabled: true, requiredApprovals: approvals },
  );
  expect(configured.statusCode).toBe(204);
  return {
    project,
    flag,
    author: await person(5),
    approver: await person(4),
    approverId: ids[1] as number,
    authorId: ids[0] as number,
    second: await person(4),
    base: `/api/admin/projects/${project}/change-requests`,
  };
}

const envOf = async (team: Team, environment = 'production') =>
  (
    await t.send(
      'GET',
      `/api/admin/projects/${team.project}/features/${team.flag}/environments/${environment}`,
    )
  ).json();

async function propose(team: Team, changes: unknown) {
  const res = await t.send(
    'POST',
    `/api/admin/projects/${team.project}/environments/production/change-requests`,
    changes,
    team.author,
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const move = (team: Team, id: number, state: string, who: Record<string, string | undefined>, extra = {}) =>
  t.send('PUT', `${team.base}/${id}/state`, { state, ...extra }, who);

async function eventsOf(project: string) {
  return t.database.session((run) =>
    run(`SELECT type, feature_name, environment, data FROM events WHERE project = $1 ORDER BY id`, [project]),
  );
}

describe('change requests', () => {
  it('lists each environment with its setting, and records a change of it', async () => {
    const x = await team(2);
    const config = (await t.send('GET', `${x.base}/config`)).json();
    expect(config).toContainEqual({
      environment: 'production',
      type: 'production',
      changeRequestEnabled: true,
      requiredApprovals: 2,
    });
    expect(config).toContainEqual(
      expect.objectContaining({ environment: 'development', changeRequestEnabled: false }),
    );
    const path = `/api/admin/projects/${x.project}/environments/production/change-requests/config`;
    expect(
      (await t.send('PUT', path, { changeRequestsEnabled: true, requiredApprovals: 11 })).statusCode,
    ).toBe(400);
    expect(
      (await t.send('PUT', path.replace('production', 'nowhere'), { changeRequestsEnabled: false }))
        .statusCode,
    ).toBe(404);
    expect(
      (await eventsOf(x.project)).filter((e) => e.type === 'change-request-configuration-updated'),
    ).toEqual([
      expect.objectContaining({
        environment: 'production',
        data: { changeRequestsEnabled: true, requiredApprovals: 2 },
      }),
    ]);
  });

  it('refuses a direct change where change requests are required, unless the caller may skip them', async () => {
    const x = await team();
    const on = (env: string) => `/api/admin/projects/${x.project}/features/${x.flag}/environments/${env}/on`;
    const refused = await t.send('POST', on('production'), undefined, x.author);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ name: 'NoAccessError' });
    expect(refused.json().message).toContain('Change requests are required in the "production" environment');
    // The project Owner does not skip them either; other environments and flag metadata are free.
    expect((await t.send('POST', on('production'), undefined, x.approver)).statusCode).toBe(403);
    expect((await t.send('POST', on('development'), undefined, x.author)).statusCode).toBe(200);
    const metadata = await t.send(
      'PUT',
      `/api/admin/projects/${x.project}/features/${x.flag}`,
      { description: 'still free' },
      x.author,
    );
    expect(metadata.statusCode).toBe(200);
    // Archiving touches every environment of the flag: refused too.
    const archive = await t.send(
      'DELETE',
      `/api/admin/projects/${x.project}/features/${x.flag}`,
      undefined,
      x.author,
    );
    expect(archive.statusCode).toBe(403);
    expect((await envOf(x)).enabled).toBe(false);
    // Admins (and admin tokens) skip them.
    expect((await t.send('POST', on('production'))).statusCode).toBe(200);
    expect((await envOf(x)).enabled).toBe(true);
  });

  it('a Member proposes, an Owner approves and applies: the flag changes only then, every step recorded', async () => {
    const x = await team();
    const draft = await propose(x, [
      { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } },
      {
        feature: x.flag,
        action: 'addStrategy',
        payload: { name: 'flexibleRollout', parameters: { rollout: '30' } },
      },
    ]);
    expect(draft).toMatchObject({ state: 'Draft', environment: 'production', minApprovals: 1 });
    expect(draft.features).toEqual([
      expect.objectContaining({
        name: x.flag,
        changes: [
          expect.objectContaining({ action: 'updateEnabled' }),
          expect.objectContaining({ action: 'addStrategy' }),
        ],
      }),
    ]);
    // One draft per person per environment: a second proposal joins it.
    const again = await propose(x, { feature: x.flag, action: 'patchVariant', payload: { variants: [] } });
    expect(again.id).toBe(draft.id);
    // Others do not see a draft.
    expect((await t.send('GET', `${x.base}/${draft.id}`, undefined, x.approver)).statusCode).toBe(404);

    expect((await move(x, draft.id, 'In review', x.author)).statusCode).toBe(200);
    const own = await move(x, draft.id, 'Approved', x.author);
    expect(own.statusCode).toBe(403);
    expect((await move(x, draft.id, 'Applied', x.approver)).statusCode).toBe(409);
    const approved = await move(x, draft.id, 'Approved', x.approver);
    expect(approved.json()).toMatchObject({ state: 'Approved', approvals: [expect.anything()] });
    expect((await envOf(x)).enabled).toBe(false);

    const applied = await move(x, draft.id, 'Applied', x.approver);
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().state).toBe('Applied');
    const env = await envOf(x);
    expect(env.enabled).toBe(true);
    // Turned on without a strategy, it got the default one first, as a direct toggle does.
    expect(env.strategies).toHaveLength(2);
    expect(env.strategies[1]).toMatchObject({ name: 'flexibleRollout', parameters: { rollout: '30' } });

    const events = await eventsOf(x.project);
    expect(events.map((e) => e.type).slice(6)).toEqual([
      'change-request-created',
      'change-added',
      'change-added',
      'change-added',
      'change-request-sent-to-review',
      'change-request-approval-added',
      'change-request-approved',
      // The default strategy the toggle adds, the toggle, the proposed strategy.
      'feature-strategy-add',
      'feature-environment-enabled',
      'feature-strategy-add',
      'change-request-applied',
    ]);
    // The changes it applied name the request.
    for (const e of events.filter(
      (e) => String(e.type).startsWith('feature-') && e.type !== 'feature-created',
    ))
      expect(e.data).toMatchObject({ changeRequestId: draft.id });
    const counts = (await t.send('GET', `${x.base}/count`)).json();
    expect(counts).toMatchObject({ applied: 1, total: 1 });
    // Its author can still be deleted; the request stays, unsigned.
    expect((await t.send('DELETE', `/api/admin/user-admin/${x.authorId}`)).statusCode).toBe(200);
    const kept = (await t.send('GET', `${x.base}/${draft.id}`, undefined, x.approver)).json();
    expect(kept).toMatchObject({ state: 'Applied', createdBy: { username: null } });
    expect(kept.createdBy.id).toBeUndefined();
  });

  it('shows a change whose target moved as a conflict, and applies nothing while it stands', async () => {
    const x = await team();
    const strategies = `/api/admin/projects/${x.project}/features/${x.flag}/environments/production/strategies`;
    const strategy = (await t.send('POST', strategies, { name: 'default' })).json();
    const draft = await propose(x, [
      { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } },
      {
        feature: x.flag,
        action: 'updateStrategy',
        payload: { id: strategy.id, name: 'default', title: 'proposed' },
      },
    ]);
    // It was made against the strategy as it was.
    expect(draft.features[0].changes[1].payload.snapshot).toMatchObject({ id: strategy.id, title: null });
    await move(x, draft.id, 'In review', x.author);
    await move(x, draft.id, 'Approved', x.approver);
    // An Admin edits the strategy meanwhile.
    expect(
      (await t.send('PUT', `${strategies}/${strategy.id}`, { name: 'default', title: 'direct' })).statusCode,
    ).toBe(200);
    const seen = (await t.send('GET', `${x.base}/${draft.id}`, undefined, x.approver)).json();
    expect(seen.features[0].changes[0].conflict).toBeUndefined();
    expect(seen.features[0].changes[1].conflict).toContain('changed since');
    const refused = await move(x, draft.id, 'Applied', x.approver);
    expect(refused.statusCode).toBe(409);
    expect((await envOf(x)).enabled).toBe(false);
    expect((await t.send('GET', `${strategies}/${strategy.id}`)).json().title).toBe('direct');
    // Discarding the conflicting change sends it back to Draft, without its approval.
    const changeId = seen.features[0].changes[1].id;
    expect(
      (await t.send('DELETE', `${x.base}/${draft.id}/changes/${changeId}`, undefined, x.author)).statusCode,
    ).toBe(200);
    const after = (await t.send('GET', `${x.base}/${draft.id}`, undefined, x.author)).json();
    expect(after).toMatchObject({ state: 'Draft', approvals: [] });
  });

  it('needs as many distinct approvals as configured; concurrent approvals and apply or cancel have one outcome', async () => {
    const x = await team(2);
    const draft = await propose(x, { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } });
    await move(x, draft.id, 'In review', x.author);
    const approvals = await Promise.all([
      move(x, draft.id, 'Approved', x.approver),
      move(x, draft.id, 'Approved', x.second),
    ]);
    expect(approvals.map((r) => r.statusCode)).toEqual([200, 200]);
    const state = (await t.send('GET', `${x.base}/${draft.id}`, undefined, x.author)).json();
    expect(state).toMatchObject({ state: 'Approved', approvals: [expect.anything(), expect.anything()] });
    const outcomes = await Promise.all([
      move(x, draft.id, 'Applied', x.approver),
      move(x, draft.id, 'Cancelled', x.author),
    ]);
    expect(outcomes.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const final = (await t.send('GET', `${x.base}/${draft.id}`, undefined, x.author)).json().state;
    expect((await envOf(x)).enabled).toBe(final === 'Applied');
    const events = (await eventsOf(x.project)).map((e) => e.type);
    expect(events.filter((e) => e === 'change-request-approved')).toHaveLength(1);
    expect(
      events.filter((e) => e === 'change-request-applied' || e === 'change-request-cancelled'),
    ).toHaveLength(1);
  });

  it('refuses bad input with the documented errors and stores nothing', async () => {
    const x = await team();
    const add = (body: unknown, env = 'production') =>
      t.send('POST', `/api/admin/projects/${x.project}/environments/${env}/change-requests`, body, x.author);
    expect((await add({ feature: x.flag, action: 'dropTables', payload: {} })).statusCode).toBe(400);
    expect(
      (await add({ feature: x.flag, action: 'updateEnabled', payload: { enabled: 'yes' } })).statusCode,
    ).toBe(400);
    expect(
      (await add({ feature: 'no-such-flag', action: 'updateEnabled', payload: { enabled: true } }))
        .statusCode,
    ).toBe(404);
    expect(
      (await add({ feature: x.flag, action: 'deleteStrategy', payload: { id: 'nope' } })).statusCode,
    ).toBe(404);
    expect(
      (
        await add({ feature: x.flag, action: 'updateEnabled', payload: { enabled: true } }, 'development')
      ).json(),
    ).toMatchObject({
      name: 'InvalidOperationError',
    });
    expect(
      (await add({ feature: x.flag, action: 'updateEnabled', payload: { enabled: true } }, 'nowhere'))
        .statusCode,
    ).toBe(404);
    // An API token is not a person.
    const byToken = await t.send(
      'POST',
      `/api/admin/projects/${x.project}/environments/production/change-requests`,
      {
        feature: x.flag,
        action: 'updateEnabled',
        payload: { enabled: true },
      },
    );
    expect(byToken.statusCode).toBe(403);
    expect((await t.send('GET', `${x.base}/999999`, undefined, x.author)).statusCode).toBe(404);
    expect((await t.send('GET', x.base, undefined, x.author)).json()).toEqual([]);
    expect(
      (await eventsOf(x.project)).filter(
        (e) => String(e.type).startsWith('change-') && e.type !== 'change-request-configuration-updated',
      ),
    ).toEqual([]);
  });

  it('applies a scheduled request when its time comes, as the person who scheduled it', async () => {
    const x = await team();
    const draft = await propose(x, { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } });
    await move(x, draft.id, 'In review', x.author);
    await move(x, draft.id, 'Approved', x.approver);
    const past = await move(x, draft.id, 'Scheduled', x.approver, {
      scheduledAt: new Date(clock - 1000).toISOString(),
    });
    expect(past.statusCode).toBe(400);
    const at = new Date(clock + 60_000).toISOString();
    const scheduled = await move(x, draft.id, 'Scheduled', x.approver, { scheduledAt: at });
    expect(scheduled.json()).toMatchObject({
      state: 'Scheduled',
      schedule: { status: 'pending', scheduledAt: at },
    });

    const touching = async (qs: string) => (await t.send('GET', `${x.base}/scheduled?${qs}`)).json();
    expect(await touching(`feature=${x.flag}&feature=other`)).toEqual([
      { id: draft.id, environment: 'production' },
    ]);
    expect(await touching('feature=other')).toEqual([]);
    expect(await touching(`variantForFlag=${x.flag}`)).toEqual([]);

    await scheduler();
    expect((await envOf(x)).enabled).toBe(false);
    clock += 61_000;
    await scheduler();
    expect((await envOf(x)).enabled).toBe(true);
    expect((await t.send('GET', `${x.base}/${draft.id}`, undefined, x.author)).json().state).toBe('Applied');
    const events = await eventsOf(x.project);
    expect(events.filter((e) => e.type === 'change-request-scheduled-application-success')).toHaveLength(1);
    expect(events.find((e) => e.type === 'feature-environment-enabled')?.data).toMatchObject({
      changeRequestId: draft.id,
    });
  });

  it('suspends a schedule whose scheduler may no longer apply, and fails one whose change conflicts', async () => {
    const x = await team();
    const strategies = `/api/admin/projects/${x.project}/features/${x.flag}/environments/production/strategies`;
    const strategy = (await t.send('POST', strategies, { name: 'default' })).json();
    const schedule = async (change: unknown) => {
      const draft = await propose(x, change);
      await move(x, draft.id, 'In review', x.author);
      await move(x, draft.id, 'Approved', x.approver);
      const at = new Date(clock + 60_000).toISOString();
      expect((await move(x, draft.id, 'Scheduled', x.approver, { scheduledAt: at })).statusCode).toBe(200);
      return draft.id as number;
    };
    const conflicting = await schedule({
      feature: x.flag,
      action: 'updateStrategy',
      payload: { id: strategy.id, name: 'default', title: 'scheduled' },
    });
    expect(
      (await t.send('PUT', `${strategies}/${strategy.id}`, { name: 'default', title: 'direct' })).statusCode,
    ).toBe(200);
    expect((await t.send('GET', `${x.base}/scheduled?strategyId=${strategy.id}`)).json()).toEqual([
      { id: conflicting, environment: 'production' },
    ]);
    clock += 61_000;
    await scheduler();
    const failed = (await t.send('GET', `${x.base}/${conflicting}`, undefined, x.author)).json();
    expect(failed).toMatchObject({ state: 'Scheduled', schedule: { status: 'failed' } });
    expect(failed.schedule.reason).toContain('changed since');
    expect((await t.send('GET', `${strategies}/${strategy.id}`)).json().title).toBe('direct');

    const suspended = await schedule({
      feature: x.flag,
      action: 'updateEnabled',
      payload: { enabled: true },
    });
    const removed = await t.send('DELETE', `/api/admin/projects/${x.project}/users/${x.approverId}/roles`);
    expect(removed.statusCode).toBe(200);
    clock += 61_000;
    await scheduler();
    expect((await t.send('GET', `${x.base}/${suspended}`, undefined, x.author)).json()).toMatchObject({
      state: 'Scheduled',
      schedule: { status: 'suspended' },
    });
    expect((await envOf(x)).enabled).toBe(false);
    const types = (await eventsOf(x.project)).map((e) => e.type);
    expect(types.filter((e) => e === 'change-request-scheduled-application-failure')).toHaveLength(1);
    expect(types.filter((e) => e === 'change-request-schedule-suspended')).toHaveLength(1);
  });

  it('gates a segment used where change requests are required, and a dependency of a flag of the project', async () => {
    const x = await team();
    const editor = asUser(await login(t, (await createUser(t, 'Editor')).username));
    const segment = (
      await t.send('POST', '/api/admin/segments', { name: uniqueName('crseg'), constraints: [] })
    ).json();
    const segmentUpdate = {
      name: segment.name,
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }],
    };
    // Unused, the Editor changes it freely.
    expect((await t.send('PUT', `/api/admin/segments/${segment.id}`, segmentUpdate, editor)).statusCode).toBe(
      204,
    );
    const strategies = `/api/admin/projects/${x.project}/features/${x.flag}/environments/production/strategies`;
    expect((await t.send('POST', strategies, { name: 'default', segments: [segment.id] })).statusCode).toBe(
      200,
    );
    const refused = await t.send('PUT', `/api/admin/segments/${segment.id}`, segmentUpdate, editor);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain(`"production" environment of project "${x.project}"`);
    expect((await t.send('DELETE', `/api/admin/segments/${segment.id}`, undefined, editor)).statusCode).toBe(
      403,
    );

    const parent = uniqueName('crparent');
    expect(
      (await t.send('POST', `/api/admin/projects/${x.project}/features`, { name: parent })).statusCode,
    ).toBe(200);
    const dependency = await t.send(
      'POST',
      `/api/admin/projects/${x.project}/features/${x.flag}/dependencies`,
      { feature: parent },
      x.author,
    );
    expect(dependency.statusCode).toBe(403);
    // Proposed instead, it applies once approved.
    const draft = await propose(x, {
      feature: x.flag,
      action: 'addDependency',
      payload: { feature: parent },
    });
    await move(x, draft.id, 'In review', x.author);
    await move(x, draft.id, 'Approved', x.approver);
    expect((await move(x, draft.id, 'Applied', x.approver)).statusCode).toBe(200);
    const flag = (await t.send('GET', `/api/admin/projects/${x.project}/features/${x.flag}`)).json();
    expect(flag.dependencies).toEqual([expect.objectContaining({ feature: parent })]);
  });

  it('edits a change, comments, titles, asks reviewers, and lists, counts and searches requests', async () => {
    const x = await team();
    const draft = await propose(x, { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } });
    const changeId = draft.features[0].changes[0].id;
    await move(x, draft.id, 'In review', x.author);
    // An edit sends it back to Draft.
    const edited = await t.send(
      'PUT',
      `${x.base}/${draft.id}/changes/${changeId}`,
      { feature: x.flag, action: 'updateEnabled', payload: { enabled: false } },
      x.author,
    );
    expect(edited.json()).toMatchObject({ state: 'Draft' });
    expect(edited.json().features[0].changes[0].payload).toEqual({ enabled: false });
    expect(
      (
        await t.send(
          'PUT',
          `${x.base}/${draft.id}/changes/${changeId}`,
          { action: 'updateEnabled' },
          x.approver,
        )
      ).statusCode,
    ).toBe(404);
    const titled = await t.send('PUT', `${x.base}/${draft.id}/title`, { title: 'Turn it off' }, x.author);
    expect(titled.json().title).toBe('Turn it off');
    const me = (await t.send('GET', '/api/admin/user', undefined, x.approver)).json().user.id;
    const asked = await t.send('PUT', `${x.base}/${draft.id}/approvers`, { reviewers: [me] }, x.author);
    expect(asked.json().reviewers).toEqual([expect.objectContaining({ id: me })]);
    expect(
      (await t.send('PUT', `${x.base}/${draft.id}/approvers`, { reviewers: [999999] }, x.author)).statusCode,
    ).toBe(404);
    await move(x, draft.id, 'In review', x.author, { comment: 'Please look' });
    const commented = await t.send(
      'POST',
      `${x.base}/${draft.id}/comments`,
      { text: 'Looks right' },
      x.approver,
    );
    expect(commented.json().comments.map((c: { text: string }) => c.text)).toEqual([
      'Please look',
      'Looks right',
    ]);

    expect((await t.send('GET', `${x.base}/count`)).json()).toMatchObject({ reviewRequired: 1, total: 1 });
    expect((await t.send('GET', `${x.base}/actionable`, undefined, x.approver)).json()).toEqual({ total: 1 });
    expect((await t.send('GET', `${x.base}/actionable`, undefined, x.author)).json()).toEqual({ total: 0 });
    const pending = (await t.send('GET', `${x.base}/pending/${x.flag}`, undefined, x.approver)).json();
    expect(pending.map((r: { id: number }) => r.id)).toEqual([draft.id]);
    const search = (
      await t.send(
        'GET',
        `/api/admin/search/change-requests?requestedApproverId=IS:${me}&state=IS:open`,
        undefined,
        x.approver,
      )
    ).json();
    expect(search).toMatchObject({
      total: 1,
      changeRequests: [{ id: draft.id, title: 'Turn it off', features: [x.flag] }],
    });
    const closed = (
      await t.send('GET', `/api/admin/search/change-requests?requestedApproverId=IS:${me}&state=IS:closed`)
    ).json();
    expect(closed.total).toBe(0);
    const reviewers = (await t.send('GET', `${x.base}/available-reviewers/production`)).json().reviewers;
    expect(reviewers.map((r: { id: number }) => r.id)).toContain(me);
  });

  it('refuses an import into a protected environment and archiving through a flag PUT, unless skipping', async () => {
    const x = await team();
    const archive = await t.send(
      'PATCH',
      `/api/admin/projects/${x.project}/features/${x.flag}`,
      [{ op: 'replace', path: '/archived', value: true }],
      x.author,
    );
    expect(archive.statusCode).toBe(403);
    expect(archive.json().message).toContain('Change requests are required');
    const document = (
      await t.send('POST', '/api/admin/features-batch/export', {
        features: [x.flag],
        environment: 'production',
      })
    ).json();
    const into = (environment: string) => ({ project: x.project, environment, data: document });
    const imported = await t.send('POST', '/api/admin/features-batch/import', into('production'), x.approver);
    expect(imported.statusCode).toBe(403);
    expect(imported.json().message).toContain('"production" environment');
    // Admins skip them.
    expect((await t.send('POST', '/api/admin/features-batch/import', into('production'))).statusCode).toBe(
      200,
    );
  });

  it('a change of the whole flag needs what its strictest protected environment asks, and the permission there', async () => {
    const x = await team(1);
    // Development too requires change requests, with two approvals.
    const dev = `/api/admin/projects/${x.project}/environments/development/change-requests/config`;
    expect((await t.send('PUT', dev, { changeRequestsEnabled: true, requiredApprovals: 2 })).statusCode).toBe(
      204,
    );
    const parent = uniqueName('crparent');
    expect(
      (await t.send('POST', `/api/admin/projects/${x.project}/features`, { name: parent })).statusCode,
    ).toBe(200);
    // Filed in production (one approval), it also reaches development (two).
    const draft = await propose(x, {
      feature: x.flag,
      action: 'addDependency',
      payload: { feature: parent },
    });
    await move(x, draft.id, 'In review', x.author);
    expect((await move(x, draft.id, 'Approved', x.approver)).json().state).toBe('In review');
    expect((await move(x, draft.id, 'Approved', x.second)).json().state).toBe('Approved');
    expect((await move(x, draft.id, 'Applied', x.approver)).statusCode).toBe(200);
    // The deprecated flag-level variants need UPDATE_FEATURE, as their route does: a Member has it.
    const variants = await propose(x, {
      feature: x.flag,
      action: 'updateFlagVariants',
      payload: { variants: [] },
    });
    expect(variants.features[0].changes[0].action).toBe('updateFlagVariants');
  });

  it('tags each scheduled request’s events with its own id, and leaves a list payload as it is', async () => {
    const x = await team();
    const strategies = `/api/admin/projects/${x.project}/features/${x.flag}/environments/production/strategies`;
    const a = (await t.send('POST', strategies, { name: 'default' })).json();
    const b = (await t.send('POST', strategies, { name: 'default' })).json();
    const ids: number[] = [];
    for (const change of [
      { feature: x.flag, action: 'updateEnabled', payload: { enabled: true } },
      {
        feature: x.flag,
        action: 'reorderStrategy',
        payload: [
          { id: a.id, sortOrder: 2 },
          { id: b.id, sortOrder: 1 },
        ],
      },
    ]) {
      const draft = await propose(x, change);
      await move(x, draft.id, 'In review', x.author);
      await move(x, draft.id, 'Approved', x.approver);
      const at = new Date(clock + 60_000).toISOString();
      expect((await move(x, draft.id, 'Scheduled', x.approver, { scheduledAt: at })).statusCode).toBe(200);
      ids.push(draft.id);
    }
    clock += 61_000;
    expect(await scheduler()).toBe(2);
    const events = await eventsOf(x.project);
    const enabled = events.find((e) => e.type === 'feature-environment-enabled');
    expect(enabled?.data).toMatchObject({ changeRequestId: ids[0] });
    const success = events.filter((e) => e.type === 'change-request-scheduled-application-success');
    expect(success.map((e) => (e.data as { changeRequestId: number }).changeRequestId)).toEqual(ids);
    const reordered = events.find((e) => e.type === 'strategy-order-changed');
    expect(Array.isArray(reordered?.data)).toBe(true);
  });
});
