import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changes } from '../../src/changes.js';
import { testConfig } from '../../src/config.js';
import { runActionSets } from '../../src/features/actions/index.js';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Signals and actions (issue 48) as an Admin wires them in the web UI: a signal endpoint and its
 * token, then an action set on the project settings page that turns a flag off when an alert says
 * `critical`; the run shows there with its outcome.
 */
describe('signals and actions in the web UI (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  }, 120_000);
  afterAll(() => stopUi(browser, t));

  it('an Admin creates an endpoint with a token and an action set; a matching signal turns the flag off', async () => {
    const flag = slug('kill');
    expect((await t.send('POST', '/api/admin/projects/default/features', { name: flag })).statusCode).toBe(
      200,
    );
    await t.send('POST', `/api/admin/projects/default/features/${flag}/environments/production/on`);
    const bot = await t.send('POST', '/api/admin/service-account', {
      username: slug('bot'),
      name: 'Alert bot',
      rootRole: 'Admin',
    });
    expect(bot.statusCode).toBe(201);
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);

    const endpoint = slug('apm');
    await page.getByRole('link', { name: 'Signals' }).click();
    await page.getByLabel('Endpoint name').fill(endpoint);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText('Signal endpoint created.').waitFor();
    await page.getByRole('button', { name: `New token for ${endpoint}` }).click();
    const secret = (await page.getByLabel('New token', { exact: true }).textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await check(page, 'signals-admin');

    await page.goto(`${url}/projects/default/settings`);
    const section = page.getByRole('region', { name: 'Actions' });
    await section.getByLabel('Action set name').fill('Kill on critical');
    await pick(page, section, 'Signal endpoint', endpoint);
    await pick(page, section, 'Run as', 'Alert bot');
    await section.getByLabel('Payload field').fill('severity');
    await section.getByLabel('Values (comma-separated)').fill('critical');
    await pick(page, section, 'Environment', 'production');
    await pick(page, section, 'Flag', flag);
    await section.getByRole('button', { name: 'Create action set' }).click();
    await section.getByRole('cell', { name: 'Kill on critical', exact: true }).waitFor();
    await check(page, 'project-actions');

    const sent = await t.request({
      method: 'POST',
      url: `/api/signal-endpoint/${endpoint}`,
      headers: { authorization: `Bearer ${secret}` },
      payload: { severity: 'critical' },
    });
    expect(sent.statusCode).toBe(202);
    await runActionSets({
      deps: { database: t.database, config: testConfig(), now: () => new Date() },
      changes,
    });
    const flagNow = await getJson(t, `/api/admin/projects/default/features/${flag}`);
    expect(flagNow.environments.find((e: { name: string }) => e.name === 'production').enabled).toBe(false);

    await section.getByRole('button', { name: 'Runs of Kill on critical' }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByText('success').first().waitFor();
    await runs.getByText(`TOGGLE_FEATURE_OFF ${flag}: success`).waitFor();
    expect(browser.errors).toEqual([]);
  }, 90_000);
});
