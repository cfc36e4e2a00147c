import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Release plans (issue 48) as a team rolls out in the web UI: an Admin makes a template of three
 * milestones, applies it to a flag's production on the flag page, starts the first and then the
 * second milestone; the flag's strategies follow.
 */
describe('release plans in the web UI (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  }, 120_000);
  afterAll(() => stopUi(browser, t));

  it('an Admin makes a template, applies it to a flag environment and starts its milestones', async () => {
    const flag = slug('rollout');
    expect((await t.send('POST', '/api/admin/projects/default/features', { name: flag })).statusCode).toBe(
      200,
    );
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);

    const name = slug('steps');
    await page.getByRole('link', { name: 'Release templates' }).click();
    await page.getByLabel('Template name').fill(name);
    await page.getByLabel('Rollout % of milestone 1').fill('10');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('Release template created.').waitFor();
    await page.getByRole('cell', { name, exact: true }).waitFor();
    await check(page, 'release-templates');

    await page.goto(`${url}/projects/default/flags/${flag}`);
    const production = page.getByRole('region', { name: 'Environment production' });
    await pick(page, production, 'Release template for production', name);
    await production.getByRole('button', { name: 'Add release plan in production' }).click();
    const plan = page.getByRole('region', { name: 'Release plan in production' });
    await plan.getByRole('button', { name: 'Start Internal' }).click();
    await plan.getByText('active').waitFor();
    await check(page, 'flag-release-plan');

    const strategies = async () =>
      (
        await getJson(t, `/api/admin/projects/default/features/${flag}/environments/production/strategies`)
      ).map((s: { parameters: { rollout?: string } }) => s.parameters.rollout);
    await expect.poll(strategies).toEqual(['10']);
    await plan.getByRole('button', { name: 'Start Half' }).click();
    await expect.poll(strategies).toEqual(['50']);
    expect(browser.errors).toEqual([]);
  }, 90_000);

  it('a Member where change requests are required starts a milestone into their draft', async () => {
    const project = slug('rpcr');
    const flag = slug('guarded');
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag })).statusCode).toBe(
      200,
    );
    const env = `/api/admin/projects/${project}/features/${flag}/environments/production`;
    const template = await t.send('POST', '/api/admin/release-plan-templates', {
      name: slug('guarded-steps'),
      milestones: [
        { name: 'First', sortOrder: 0, strategies: [{ name: 'default', sortOrder: 0 }] },
        { name: 'Second', sortOrder: 1, strategies: [{ name: 'default', sortOrder: 0, title: 'second' }] },
      ],
    });
    expect(template.statusCode, template.body).toBe(201);
    const plan = await t.send('POST', `${env}/release-plans`, { templateId: template.json().id });
    expect(plan.statusCode, plan.body).toBe(201);
    const [first, second] = plan.json().milestones;
    expect(
      (await t.send('POST', `${env}/release-plans/${plan.json().id}/milestones/${first.id}/start`))
        .statusCode,
    ).toBe(200);
    const config = await t.send(
      'PUT',
      `/api/admin/projects/${project}/environments/production/change-requests/config`,
      {
        changeRequestsEnabled: true,
        requiredApprovals: 1,
      },
    );
    expect(config.statusCode).toBe(204);
    const member = await createUser(t, 'Viewer');
    const granted = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [5],
      users: [{ id: member.id }],
    });
    expect(granted.statusCode).toBe(200);

    await signIn(browser, url, member.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    const region = page.getByRole('region', { name: 'Release plan in production' });
    await region.getByRole('button', { name: 'Start Second' }).click();
    await page.getByText('Added to your change request for production.').waitFor();
    // Nothing moved: the start waits in the Member's draft, as the change Unleash names.
    expect((await getJson(t, `${env}/release-plans/${plan.json().id}`)).activeMilestoneId).toBe(first.id);
    await expect
      .poll(
        async () =>
          await t.database.session((run) =>
            run(
              `SELECT c.change->>'action' AS action, c.change->'payload'->>'milestoneId' AS milestone
                 FROM change_request_changes c JOIN change_requests r ON r.id = c.change_request_id
                WHERE r.project = $1`,
              [project],
            ),
          ),
      )
      .toEqual([{ action: 'startMilestone', milestone: second.id }]);
    expect(browser.errors).toEqual([]);
  }, 90_000);
});
