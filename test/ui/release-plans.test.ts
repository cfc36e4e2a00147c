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
});
