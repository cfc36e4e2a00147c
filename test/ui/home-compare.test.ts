import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { asUser, createUser, login } from '../people.js';
import { axeViolations, type Browser, check, getJson, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * The flag page's environment comparison and "Copy to…", and the home page's "needs attention",
 * in headless Chromium against the real service.
 */
describe('web UI: comparing environments, copying strategies and the home page', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-home');
  const flag = slug('compare');
  const old = slug('old');
  const done = slug('done');
  const flagUrl = `/api/admin/projects/${project}/features/${flag}`;
  const rollout = {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'default', groupId: flag },
  };
  const beta = {
    name: 'default',
    title: 'Beta users',
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
  };
  let admin: { id: number; username: string };

  const addStrategy = async (environment: string, body: unknown) => {
    const res = await t.send('POST', `${flagUrl}/environments/${environment}/strategies`, body);
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    for (const name of [flag, old, done]) {
      const created = await t.send('POST', `/api/admin/projects/${project}/features`, { name });
      expect(created.statusCode, created.body).toBe(200);
    }
    // development: the rollout and a constrained strategy; production: the same rollout only.
    await addStrategy('development', rollout);
    await addStrategy('development', beta);
    await addStrategy('production', rollout);
    expect((await t.send('POST', `${flagUrl}/environments/development/on`)).statusCode).toBe(200);
    // The admin is a Member of the project and favorites the flag: both show on the home page.
    admin = await createUser(t, 'Admin', { name: 'Ada Home' });
    const access = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [5],
      users: [{ id: admin.id }],
    });
    expect(access.statusCode, access.body).toBe(200);
    const favorite = await t.send(
      'POST',
      `${flagUrl}/favorites`,
      undefined,
      asUser(await login(t, admin.username)),
    );
    expect(favorite.statusCode, favorite.body).toBe(200);
  });
  afterAll(() => stopUi(browser, t));

  it('compares development with production, then copies the strategies of development there', async () => {
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();

    const compare = page.getByRole('region', { name: 'Compare environments' });
    expect(await compare.getByRole('table').count()).toBe(0);
    await compare.getByRole('button', { name: 'Compare environments' }).click();
    const table = compare.getByRole('table', { name: 'Comparison of development and production' });
    await table.waitFor();
    // On in development only; the rollout is in both; the constrained strategy only in development.
    const enabled = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Enabled' }) });
    await enabled.getByRole('cell', { name: 'Different' }).waitFor();
    const same = table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /Gradual rollout/ }) });
    await same.getByRole('cell', { name: 'Same', exact: true }).waitFor();
    expect(await same.getAttribute('data-status')).toBe('same');
    const missing = table.getByRole('row').filter({ hasText: 'Only in development' });
    await missing.getByText('Constraint: userId is one of a, b').waitFor();
    await missing.getByRole('rowheader', { name: /Beta users/ }).waitFor();
    expect(await missing.getAttribute('data-status')).toBe('only-left');
    // Highlighted: a tinted row, its lines in bold.
    expect(await missing.evaluate((row) => getComputedStyle(row).backgroundColor)).not.toBe(
      await same.evaluate((row) => getComputedStyle(row).backgroundColor),
    );
    await compare.getByText('2 differences between development and production.').waitFor();
    await compare.scrollIntoViewIfNeeded();
    await check(page, 'flag-compare');

    // Copy development's two strategies to production, which keeps its own.
    const development = page.getByRole('region', { name: 'Environment development' });
    await development.getByRole('button', { name: 'Copy to…' }).click();
    await page.getByRole('menuitem', { name: 'production' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy strategies to production' });
    await dialog
      .getByText(
        '2 strategies of development will be added to production; the 1 strategy already there is kept.',
      )
      .waitFor();
    expect(await axeViolations(page), 'copy dialog').toEqual([]);
    // The second write fails (as when someone else changed the flag meanwhile): the dialog shows the
    // API's message, and copying again adds only the strategy that was not copied.
    let posts = 0;
    const strategiesUrl = `**/api/admin/projects/${project}/features/${flag}/environments/production/strategies`;
    await page.route(strategiesUrl, async (route) => {
      posts++;
      if (posts === 2)
        await route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ id: 'e1', name: 'ConflictError', message: 'The flag changed meanwhile.' }),
        });
      else await route.continue();
    });
    await dialog.getByRole('button', { name: 'Copy 2 strategies' }).click();
    await dialog.getByRole('alert').getByText('The flag changed meanwhile.').waitFor();
    await dialog
      .getByText(
        '1 strategy of 2 was copied before the error; copying again goes on with the other 1 strategy.',
      )
      .waitFor();
    expect(await axeViolations(page), 'copy dialog with an error').toEqual([]);
    const half = (await getJson(t, flagUrl)).environments.find(
      (e: { name: string }) => e.name === 'production',
    );
    expect(half.strategies).toHaveLength(2);
    await page.unroute(strategiesUrl);
    await dialog.getByRole('button', { name: 'Copy the other 1 strategy' }).click();
    await page.getByText('Copied 2 strategies from development to production.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(posts).toBe(2); // the retry went past the route, which was gone

    const production = (await getJson(t, flagUrl)).environments.find(
      (e: { name: string }) => e.name === 'production',
    );
    expect(production.strategies).toEqual([
      expect.objectContaining({ ...rollout, sortOrder: 0 }),
      expect.objectContaining({ ...rollout, title: null, disabled: false, constraints: [], segments: [] }),
      expect.objectContaining({
        name: 'default',
        title: 'Beta users',
        disabled: false,
        constraints: [expect.objectContaining(beta.constraints[0])],
      }),
    ]);
    expect(new Set(production.strategies.map((s: { id: string }) => s.id)).size).toBe(3);

    // The page shows the copies, and the comparison now finds the extra rollout in production only.
    await page.getByRole('region', { name: 'Environment production' }).getByText('3. Beta users').waitFor();
    await table.getByRole('row').filter({ hasText: 'Only in production' }).waitFor();
    expect(await table.getByRole('row').filter({ hasText: 'Only in development' }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it('shows the needs-attention list, projects and flags on the home page', async () => {
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Home', exact: true }).click();
    await page.getByRole('heading', { name: 'Welcome, Ada Home', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    const attention = page.getByRole('region', { name: 'Needs attention' });
    await attention.getByText('Nothing needs attention.').waitFor();

    // Stale, and completed: both need attention (the home page reads them fresh on each visit).
    const stale = await t.send('PUT', `/api/admin/projects/${project}/features/${old}`, { stale: true });
    expect(stale.statusCode, stale.body).toBe(200);
    const completed = await t.send(
      'POST',
      `/api/admin/projects/${project}/features/${done}/lifecycle/complete`,
      {
        status: 'kept',
      },
    );
    expect(completed.statusCode, completed.body).toBe(200);
    await page.goto(`${url}/`);
    const list = attention.getByRole('table', { name: 'Flags that need attention' });
    const oldRow = list.getByRole('row').filter({ has: page.getByRole('link', { name: old, exact: true }) });
    await oldRow.getByText('stale', { exact: true }).waitFor();
    const doneRow = list
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: done, exact: true }) });
    await doneRow.getByText('completed (kept): clean up').waitFor();
    expect(await list.getByRole('link', { name: flag, exact: true }).count()).toBe(0);

    // The project with its health (one stale flag of three), and the favorited flag.
    const projects = page.getByRole('table', { name: 'Your projects' });
    await projects.getByRole('link', { name: `Health of ${project}: 67%, see its status` }).waitFor();
    await page
      .getByRole('table', { name: 'Your flags' })
      .getByRole('link', { name: flag, exact: true })
      .waitFor();
    await check(page, 'home');

    await oldRow.getByRole('link', { name: old, exact: true }).click();
    await page.getByRole('heading', { name: old, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project}/flags/${old}`);
    expect(await axeViolations(page), 'stale flag page').toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  it('shows no "Copy to…" to a Viewer', async () => {
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    await page.getByRole('region', { name: 'Environment development' }).getByText('2. Beta users').waitFor();
    expect(await page.getByRole('button', { name: 'Copy to…' }).count()).toBe(0);
    // Comparing only reads: a Viewer may.
    await page.getByRole('button', { name: 'Compare environments' }).click();
    await page.getByRole('table', { name: 'Comparison of development and production' }).waitFor();
  });
});
