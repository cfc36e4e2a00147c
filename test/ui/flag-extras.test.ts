import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, uniqueName } from '../harness.js';
import { createUser } from '../people.js';
import {
  axeViolations,
  type Browser,
  check,
  focused,
  getJson,
  screenshot,
  signIn,
  slug,
  startUi,
  stopUi,
} from './browser.js';

/**
 * The flag page's history (events with a before/after diff), metrics chart, tag and dependency
 * editing, and the Ctrl+K command palette, in headless Chromium against the real service.
 */
describe('web UI: flag history, metrics, tags, dependencies and the command palette', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-extras');
  const flag = slug('extras');
  const parent = slug('parent');
  const flagUrl = `/api/admin/projects/${project}/features/${flag}`;

  beforeAll(async () => {
    // Metrics are written before the answer (METRICS_BATCH_MS 0 in the test config).
    ({ t, url, browser, page } = await startUi());
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    for (const [name, description] of [
      [flag, 'first description'],
      [parent, 'the parent'],
    ]) {
      const created = await t.send('POST', `/api/admin/projects/${project}/features`, { name, description });
      expect(created.statusCode, created.body).toBe(200);
    }
    // Two changes: the description, and a strategy in development.
    const updated = await t.send('PUT', flagUrl, { description: 'second description' });
    expect(updated.statusCode, updated.body).toBe(200);
    const strategy = await t.send('POST', `${flagUrl}/environments/development/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: flag },
    });
    expect(strategy.statusCode, strategy.body).toBe(200);
  });
  afterAll(() => stopUi(browser, t));

  it('shows the history with a diff and the metrics chart; edits tags and dependencies', async () => {
    // An SDK with a development token reports 7 enabled, 3 not enabled, 2 of them variant blue.
    const token = await t.send('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('sdk'),
      type: 'client',
      environment: 'development',
      projects: [project],
    });
    expect(token.statusCode, token.body).toBe(201);
    const now = new Date().toISOString();
    const metrics = await t.send(
      'POST',
      '/api/client/metrics',
      {
        appName: 'web',
        instanceId: 'i1',
        bucket: { start: now, stop: now, toggles: { [flag]: { yes: 7, no: 3, variants: { blue: 2 } } } },
      },
      { authorization: token.json().secret },
    );
    expect(metrics.statusCode, metrics.body).toBe(202);

    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);

    const history = page.getByRole('region', { name: 'History' });
    const edit = history.getByRole('listitem').filter({ hasText: 'feature-metadata-updated' });
    await edit.getByText('description: "first description" → "second description"').waitFor();
    // Newest first: the strategy (added last) comes before the description change and the creation.
    const types = await history
      .getByRole('list', { name: 'Events' })
      .locator(':scope > li .mantine-Badge-label')
      .allTextContents();
    expect(types).toEqual(['feature-strategy-add', 'feature-metadata-updated', 'feature-created']);

    const chart = page.getByRole('region', { name: 'Metrics, last 48 hours' });
    await chart
      .getByRole('img', {
        name: `Evaluations of ${flag} in development per hour, last 48 hours: 7 enabled, 3 not enabled (70% enabled)`,
      })
      .waitFor();
    await chart.getByText('Variants in development: blue 2 (100%)').waitFor();
    await chart.getByText('Hourly counts in development as a table').click();
    await chart
      .getByRole('table', { name: 'Hourly evaluations in development' })
      .getByRole('cell', { name: '7', exact: true })
      .waitFor();
    await page.getByText('Tags: none').waitFor();
    await chart.scrollIntoViewIfNeeded();
    await screenshot(page, 'flag-metrics');
    await history.scrollIntoViewIfNeeded();
    await check(page, 'flag-history');

    // A tag: added and removed through the UI, checked through the API.
    await page.getByRole('button', { name: 'Add tag' }).click();
    const tagDialog = page.getByRole('dialog', { name: `Add a tag to ${flag}` });
    await tagDialog.getByLabel('Tag value').fill('team-extras');
    await tagDialog.getByRole('button', { name: 'Add tag' }).click();
    await page.getByText('Tag simple:team-extras added.').waitFor();
    expect((await getJson(t, `/api/admin/features/${flag}/tags`)).tags).toEqual([
      { type: 'simple', value: 'team-extras' },
    ]);
    await page.getByRole('button', { name: 'Remove tag simple:team-extras' }).click();
    await page.getByText('Tag simple:team-extras removed.').waitFor();
    expect((await getJson(t, `/api/admin/features/${flag}/tags`)).tags).toEqual([]);

    // A parent flag of the same project, which must be on.
    await page.getByRole('button', { name: 'Add parent flag' }).click();
    const parentDialog = page.getByRole('dialog', { name: `Add a parent flag to ${flag}` });
    await parentDialog.getByRole('combobox', { name: 'Parent flag' }).fill(parent.slice(0, 10));
    await page.getByRole('option', { name: parent, exact: true }).click();
    await parentDialog.getByRole('button', { name: 'Add parent' }).click();
    await page.getByText(`${flag} now depends on ${parent}.`).waitFor();
    expect((await getJson(t, flagUrl)).dependencies).toEqual([
      expect.objectContaining({ feature: parent, enabled: true }),
    ]);
    await page.getByText(`${parent} being on`).waitFor();
    await history.getByText('feature-dependency-added').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  it('opens the command palette with Control+K and goes to a page or a flag', async () => {
    await page.goto(`${url}/projects`);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const dialog = page.getByRole('dialog', { name: 'Go to a page or flag' });
    const input = dialog.getByRole('combobox', { name: 'Search pages and flags' });

    // A page, picked with the arrow keys: "pl" matches Release templates, Playground and Applications,
    // in the navigation's order. "p" alone also
    // finds both flags (their descriptions); those leave the list as soon as the text no longer fits.
    await page.keyboard.press('Control+K');
    await focused(input);
    await page.keyboard.type('p');
    await dialog.getByRole('option', { name: new RegExp(`^${parent}`) }).waitFor();
    await page.keyboard.type('l');
    await dialog.getByRole('option', { name: 'Applications' }).waitFor();
    expect(await dialog.getByRole('option').allTextContents()).toEqual([
      'Release templates',
      'Playground',
      'Applications',
    ]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await dialog.getByRole('option', { name: 'Applications' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/applications');
    await dialog.waitFor({ state: 'hidden' });

    // Escape closes it.
    await page.keyboard.press('Control+K');
    await input.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // A flag, found by part of its name through the search API.
    // Keys pressed before the dialog has focused its input go to the page: wait for the focus.
    await page.keyboard.press('Control+K');
    await focused(input);
    await page.keyboard.type(flag.slice(-8));
    const option = dialog.getByRole('option', { name: new RegExp(`^${flag}`) });
    await option.waitFor();
    expect(await option.getAttribute('aria-selected')).toBe('true');
    await check(page, 'command-palette');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project}/flags/${flag}`);
    expect(browser.errors).toEqual([]);
  });

  it('shows tags and dependencies without edit controls to a Viewer', async () => {
    // Six more changes: more than a page (ten) of events, so the oldest wait behind "Show older".
    for (let i = 1; i <= 6; i++)
      expect((await t.send('PUT', flagUrl, { description: `change ${i}` })).statusCode).toBe(200);
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    await page.getByText(`${parent} being on`).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText('description: "change 5" → "change 6"').waitFor();
    expect(await history.getByRole('listitem').filter({ hasText: 'feature-created' }).count()).toBe(0);
    await history.getByRole('button', { name: /^Show older events \(\d+ more\)$/ }).click();
    await history.getByRole('listitem').filter({ hasText: 'feature-created' }).waitFor();
    await history.getByText('feature-dependency-added').waitFor();
    expect(await page.getByRole('button', { name: 'Add tag' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add parent flag' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Remove dependency on ${parent}` }).count()).toBe(0);
    // The palette lists no admin pages to a Viewer.
    await page.keyboard.press('Control+K');
    const dialog = page.getByRole('dialog', { name: 'Go to a page or flag' });
    await dialog.getByRole('option', { name: 'Projects' }).waitFor();
    expect(await dialog.getByRole('option', { name: 'Users' }).count()).toBe(0);
  });
});
