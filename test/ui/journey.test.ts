import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, uniqueName } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * The journey in headless Chromium against the real service on a real database: an admin
 * creates a project, a segment and a flag, adds a gradual rollout with a constraint and the segment,
 * turns the flag on, checks the playground and reads the event log; a Viewer sees no edit control
 * and a forced write is refused. Every main page passes axe (WCAG 2 A and AA).
 */
describe('web UI journey (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-project');
  const flag = slug('checkout');
  const segment = uniqueName('web-app');

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  });
  afterAll(() => stopUi(browser, t));

  it('lets an admin manage a flag end to end', async () => {
    const admin = await createUser(t, 'Admin');
    await page.goto(`${url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await check(page, 'login');
    await signIn(browser, url, admin.username);
    await check(page, 'projects');
    // Dark mode: the toggle switches the scheme, and the dark page passes axe too.
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    expect(await page.evaluate("document.documentElement.getAttribute('data-mantine-color-scheme')")).toBe(
      'dark',
    );
    await check(page, 'projects-dark');
    await page.getByRole('button', { name: 'Switch to light mode' }).click();

    // Project; a refused write shows the server's error message
    await page.getByRole('button', { name: 'New project' }).click();
    const projectDialog = page.getByRole('dialog', { name: 'New project' });
    await projectDialog.getByLabel('Project id').fill('default');
    await projectDialog.getByRole('button', { name: 'Create project' }).click();
    const refused = (await t.send('POST', '/api/admin/projects', { id: 'default', name: 'default' })).json();
    await page.getByRole('alert').filter({ hasText: refused.message }).first().waitFor();
    await projectDialog.getByLabel('Project id').fill(project);
    await projectDialog.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: `Flags in ${project}` }).waitFor();
    expect((await getJson(t, `/api/admin/projects/${project}`)).name).toBe(project);

    // Segment with a constraint
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('button', { name: 'New segment' }).click();
    const segmentDialog = page.getByRole('dialog', { name: 'New segment' });
    await segmentDialog.getByLabel('Segment name').fill(segment);
    await segmentDialog.getByRole('button', { name: 'Add constraint' }).click();
    await pick(page, segmentDialog, 'Context field', 'appName');
    await segmentDialog.getByRole('combobox', { name: 'Values' }).fill('web');
    await segmentDialog.getByRole('combobox', { name: 'Values' }).press('Enter');
    await segmentDialog.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('cell', { name: segment }).waitFor();
    const segments = (await getJson(t, '/api/admin/segments')).segments as {
      id: number;
      name: string;
      constraints: unknown[];
    }[];
    const created = segments.find((s) => s.name === segment);
    expect(created?.constraints).toEqual([
      expect.objectContaining({ contextName: 'appName', operator: 'IN', values: ['web'] }),
    ]);
    await check(page, 'segments');

    // Flag
    await page.goto(`${url}/projects/${project}`);
    await page.getByRole('button', { name: 'New flag' }).click();
    const flagDialog = page.getByRole('dialog', { name: 'New flag' });
    await flagDialog.getByLabel('Flag name').fill(flag);
    await flagDialog.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();
    expect((await getJson(t, `/api/admin/projects/${project}/features/${flag}`)).name).toBe(flag);

    // Strategy: 100% rollout for userId alice, in the segment
    await page.getByRole('button', { name: 'Add strategy in production' }).click();
    const strategyDialog = page.getByRole('dialog');
    await strategyDialog.getByLabel('Rollout %').fill('100');
    await strategyDialog.getByRole('button', { name: 'Add constraint' }).click();
    await pick(page, strategyDialog, 'Context field', 'userId');
    await strategyDialog.getByRole('combobox', { name: 'Values' }).fill('alice');
    await strategyDialog.getByRole('combobox', { name: 'Values' }).press('Enter');
    await pick(page, strategyDialog, 'Segments', segment);
    await strategyDialog.getByRole('heading').click(); // closes the multi-select's list
    await strategyDialog.getByRole('button', { name: 'Save strategy' }).click();
    await page.getByText('Strategy added in production.').waitFor();
    const production = await getJson(
      t,
      `/api/admin/projects/${project}/features/${flag}/environments/production`,
    );
    expect(production.strategies).toEqual([
      expect.objectContaining({
        name: 'flexibleRollout',
        parameters: expect.objectContaining({ rollout: '100' }),
        constraints: [expect.objectContaining({ contextName: 'userId', operator: 'IN', values: ['alice'] })],
        segments: [created?.id],
      }),
    ]);

    // Edit it (a title), and add then delete one in development
    await page.getByRole('button', { name: 'Edit strategy 1' }).click();
    await page.getByRole('dialog').getByLabel('Title (optional)').fill('Alice on the web app');
    await page.getByRole('dialog').getByRole('button', { name: 'Save strategy' }).click();
    await page.getByText('1. Alice on the web app').waitFor();
    const edited = await getJson(
      t,
      `/api/admin/projects/${project}/features/${flag}/environments/production`,
    );
    expect(edited.strategies).toEqual([
      expect.objectContaining({ title: 'Alice on the web app', segments: [created?.id] }),
    ]);
    const development = page.getByRole('region', { name: 'Environment development' });
    await development.getByRole('button', { name: 'Add strategy in development' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save strategy' }).click();
    await page.getByText('Strategy added in development.').waitFor();
    const devPath = `/api/admin/projects/${project}/features/${flag}/environments/development`;
    expect((await getJson(t, devPath)).strategies).toHaveLength(1);
    await development.getByRole('button', { name: 'Delete strategy 1' }).click();
    await page.getByText('Strategy deleted.').waitFor();
    expect((await getJson(t, devPath)).strategies).toEqual([]);

    // On in production
    await page.getByRole('switch', { name: `${flag} in production` }).click();
    await page.getByText(`${flag} is on in production.`).waitFor();
    expect(
      (await getJson(t, `/api/admin/projects/${project}/features/${flag}/environments/production`)).enabled,
    ).toBe(true);
    await check(page, 'flag');

    // The project's flag list: search box (focused by /), filter kept in the URL, switch state
    await page.goto(`${url}/projects/${project}`);
    const searchBox = page.getByRole('textbox', { name: 'Search flags' });
    await page.getByRole('link', { name: flag }).waitFor();
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement.id')).toBe(await searchBox.getAttribute('id'));
    await page.keyboard.type(flag.slice(0, 12));
    await expect.poll(() => new URL(page.url()).searchParams.get('query')).toBe(flag.slice(0, 12));
    await expect
      .poll(() => page.getByRole('switch', { name: `${flag} in production` }).isChecked())
      .toBe(true);
    expect(await page.getByRole('switch', { name: `${flag} in development` }).isChecked()).toBe(false);
    await check(page, 'project-flags-search');

    // Playground: true for alice on the web app, false for bob
    await page.goto(`${url}/playground?environment=production&project=${project}`);
    await page.getByLabel('appName').fill('web');
    await page.getByLabel('userId').fill('alice');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    const row = page.getByRole('row', { name: new RegExp(flag) });
    await expect.poll(() => row.getByRole('cell').nth(2).textContent()).toBe('true');
    await check(page, 'playground');
    await page.getByLabel('userId').fill('bob');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await expect.poll(() => row.getByRole('cell').nth(2).textContent()).toBe('false');

    // Events, one sentence each
    await page.getByRole('link', { name: 'Event log' }).click();
    await page.getByText(`turned on ${flag} in production`).first().waitFor();
    await page.getByText(`added a strategy to ${flag} in production`).first().waitFor();
    await page.getByText(`${admin.username} created project "${project}".`).waitFor();
    await check(page, 'events');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(browser.errors).toEqual([]);
    // The whole journey (a dozen pages, each checked by axe) takes 20-28 s on two busy cores.
  }, 90_000);

  it('shows a Viewer no edit control, and the server refuses a forced write', async () => {
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    expect(await page.getByRole('button', { name: 'New project' }).count()).toBe(0);

    await page.goto(`${url}/projects/${project}`);
    await page.getByRole('link', { name: flag }).waitFor();
    expect(await page.getByRole('switch').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New flag' }).count()).toBe(0);

    await page.getByRole('link', { name: flag }).click();
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();
    expect(await page.getByRole('switch').count()).toBe(0);
    expect(await page.getByRole('button', { name: /strategy/i }).count()).toBe(0);

    await page.goto(`${url}/segments`);
    await page.getByRole('cell', { name: segment }).waitFor();
    expect(await page.getByRole('button', { name: 'New segment' }).count()).toBe(0);

    // The session cookie goes along; the server, not the UI, is the guard.
    const status = await page.evaluate(
      `fetch('api/admin/projects/${project}/features/${flag}/environments/production/off', { method: 'POST' }).then((r) => r.status)`,
    );
    expect(status).toBe(403);
    expect(
      (await getJson(t, `/api/admin/projects/${project}/features/${flag}/environments/production`)).enabled,
    ).toBe(true);
    expect(browser.errors).toEqual([]);
  });
});
