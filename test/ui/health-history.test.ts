import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProjectHealth } from '../../src/features/projects/index.js';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * The project status page's "Health over time" chart (issue 16): a day recorded by the health job
 * and today computed live, as a line chart with its summary and as a table, in headless Chromium.
 */
describe('web UI: project health over time', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-health');
  const flags = [slug('healthy'), slug('to-be-stale')];

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    const created = await t.send('POST', '/api/admin/projects', { id: project, name: project });
    expect(created.statusCode, created.body).toBe(201);
    for (const name of flags) {
      const res = await t.send('POST', `/api/admin/projects/${project}/features`, { name });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(() => stopUi(browser, t));

  it("shows yesterday's recorded health and today's as a chart and a table", async () => {
    // Yesterday both flags were fine (the job's round then); today one is stale.
    await recordProjectHealth({ database: t.database, now: () => new Date(Date.now() - 86_400_000) });
    const stale = await t.send('POST', `/api/admin/projects/${project}/stale`, {
      features: [flags[1]],
      stale: true,
    });
    expect(stale.statusCode, stale.body).toBe(202);
    const history = await getJson(t, `/api/admin/projects/${project}/health-history`);
    expect(history.days).toHaveLength(2);
    const [yesterday, today] = history.days as { date: string; health: number }[];
    expect(yesterday?.health).toBe(100);
    expect(today?.health).toBe(50);

    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/projects/${project}/status`);
    await page.getByRole('heading', { name: `Status of ${project}`, level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Health over time' });
    await section
      .getByRole('img', {
        name: new RegExp(
          `^Health per day, last 30 days Health 50% today \\(${today?.date}\\), from 100% on ${yesterday?.date}`,
        ),
      })
      .waitFor();
    expect(await section.locator('svg circle').count()).toBe(2);

    await section.getByText('Health data as a table (2 days)').click();
    const rows = section.getByRole('row');
    await expect
      .poll(() => rows.nth(1).getByRole('cell').allTextContents())
      .toEqual([today?.date, '50%', '2', '1', '0']);
    await expect
      .poll(() => rows.nth(2).getByRole('cell').allTextContents())
      .toEqual([yesterday?.date, '100%', '2', '0', '0']);
    await check(page, 'project-health-history');
    expect(browser.errors).toEqual([]);
  });
});
