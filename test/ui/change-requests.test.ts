import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Change requests in the web UI, with two people (issue 47): an Admin requires them in production,
 * a project Member turns the flag on there (it goes into their draft) and submits it, a project
 * Owner approves and applies it; the flag changes only then.
 */
describe('change requests in the web UI (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('crui');
  const flag = slug('crflag');
  const production = `/api/admin/projects/${project}/features/${flag}/environments/production`;
  let author: { username: string };
  let approver: { id: number; username: string };

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag })).statusCode).toBe(
      200,
    );
    const member = async (role: number) => {
      const user = await createUser(t, 'Viewer');
      const granted = await t.send('POST', `/api/admin/projects/${project}/access`, {
        roles: [role],
        users: [{ id: user.id }],
      });
      expect(granted.statusCode).toBe(200);
      return user;
    };
    author = await member(5);
    approver = await member(4);
  }, 120_000);
  afterAll(() => stopUi(browser, t));

  it('an Admin requires change requests in production on the project settings', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/projects/${project}/settings`);
    await page.getByRole('switch', { name: 'Change requests in production' }).click({ force: true });
    await page.getByText('Change requests required in production (1 approval).').waitFor();
    const config = await getJson(t, `/api/admin/projects/${project}/change-requests/config`);
    expect(config.find((c: { environment: string }) => c.environment === 'production')).toMatchObject({
      changeRequestEnabled: true,
      requiredApprovals: 1,
    });
  }, 60_000);

  it('a Member turns the flag on in production: it goes into their draft, which they submit', async () => {
    await signIn(browser, url, author.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    const card = page.getByRole('region', { name: 'Environment production' });
    await card.getByText('Change requests required').waitFor();
    await page.getByRole('switch', { name: `${flag} in production` }).click({ force: true });
    await page.getByText('Added to your change request for production.').waitFor();
    expect((await getJson(t, production)).enabled).toBe(false);

    await page.getByRole('link', { name: 'Review changes (1) in production' }).click();
    const changes = page.getByRole('region', { name: `Changes of ${flag}` });
    await changes.getByText('updateEnabled').waitFor();
    // Shown as a diff against the flag as it is now: off in production, on once applied.
    const diff = changes.getByLabel(/^Diff of change /);
    await diff.locator('ins').waitFor();
    expect(await diff.locator('del').allTextContents()).toEqual(['-   "enabled": false']);
    expect(await diff.locator('ins').allTextContents()).toEqual(['+   "enabled": true']);
    await check(page, 'change-request-draft');
    // Its author asks the Owner to review it.
    await page.getByLabel('Reviewers asked').first().click();
    await page.getByRole('option', { name: approver.username }).click();
    // A draft is its author's alone (the admin token does not see it): read what was stored.
    await expect
      .poll(async () =>
        (
          await t.database.session((run) =>
            run(
              `SELECT v.user_id FROM change_request_reviewers v JOIN change_requests r ON r.id = v.change_request_id
               WHERE r.project = $1`,
              [project],
            ),
          )
        ).map((row) => row.user_id),
      )
      .toEqual([approver.id]);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByText('In review', { exact: true }).waitFor();
    expect((await getJson(t, production)).enabled).toBe(false);
  }, 60_000);

  it('an Owner approves and applies it: the flag is on in production only then', async () => {
    await signIn(browser, url, approver.username);
    await page.goto(`${url}/projects/${project}/change-requests`);
    await page.getByText('Needs my review (1)').click();
    await page.getByRole('table', { name: 'Change requests' }).getByRole('link').first().click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved', { exact: true }).waitFor();
    expect((await getJson(t, production)).enabled).toBe(false);
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await page.getByText('Applied', { exact: true }).waitFor();
    await expect.poll(async () => (await getJson(t, production)).enabled).toBe(true);
    await check(page, 'change-request-applied');
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
