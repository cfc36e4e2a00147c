import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, pick, signIn, slug, startUi, stopUi } from './browser.js';

/** The words of the curl command the page copies: single-quoted, `'` written as `'"'"'`. */
function dataOf(command: string) {
  const match = /--data '(.*)'$/.exec(command);
  if (!match?.[1]) throw new Error(`No --data in ${command}`);
  return JSON.parse(match[1].replaceAll(`'"'"'`, "'"));
}

/**
 * The playground in several environments at once (the advanced playground): a table of flags by
 * environment, each cell explained in a drawer, "Copy as curl" giving the same request, and the
 * environments, projects and context in the URL. Headless Chromium against the real service.
 */
describe('web UI: playground in several environments, copy as curl', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-playground');
  const flag = slug('pg');
  const flagUrl = `/api/admin/projects/${project}/features/${flag}`;
  // A quote in a context value: the curl command must survive a POSIX shell.
  const user = "o'brien";

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    const created = await t.send('POST', '/api/admin/projects', { id: project, name: project });
    expect(created.statusCode, created.body).toBe(201);
    const flagCreated = await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag });
    expect(flagCreated.statusCode, flagCreated.body).toBe(200);
    // On in development only, for that user; production has no strategy and stays off.
    const strategy = await t.send('POST', `${flagUrl}/environments/development/strategies`, {
      name: 'default',
      constraints: [{ contextName: 'userId', operator: 'IN', values: [user] }],
    });
    expect(strategy.statusCode, strategy.body).toBe(200);
    const on = await t.send('POST', `${flagUrl}/environments/development/on`);
    expect(on.statusCode, on.body).toBe(200);
  });
  afterAll(() => stopUi(browser, t));

  it('evaluates two environments, explains a cell, copies the request as curl', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/playground?project=${project}`);

    // The first enabled environment is picked; production is added; both go into the URL.
    const environments = page.getByRole('combobox', { name: 'Environments' });
    await environments.waitFor();
    await pick(page, page, 'Environments', 'production');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => new URL(page.url()).searchParams.getAll('environment'))
      .toEqual(['development', 'production']);

    await page.getByLabel('appName').fill('web');
    await page.getByLabel('userId').fill(user);
    await page.getByRole('button', { name: 'Evaluate' }).click();
    const table = page.getByRole('table', { name: 'Playground result' });
    // Polled: the table appears when the answer is in (allTextContents does not wait for it).
    await expect
      .poll(() => table.getByRole('columnheader').allTextContents())
      .toEqual(['Flag', 'Project', 'development', 'production']);
    const row = table.getByRole('row', { name: new RegExp(flag) });
    await expect.poll(() => row.getByRole('cell').nth(2).textContent()).toBe('true');
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('false');
    await check(page, 'playground-environments');

    // The development cell explains itself: the strategy and its constraint, both true.
    await row.getByRole('button', { name: `true: explain ${flag} in development` }).click();
    const drawer = page.getByRole('dialog', { name: `${flag} in development` });
    const constraints = drawer.getByRole('list', { name: 'Constraints of default' });
    await constraints.getByText(`userId is one of ${user}`).waitFor();
    expect(await constraints.getByRole('listitem').textContent()).toBe(`trueuserId is one of ${user}`);
    await check(page, 'playground-explain');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: `false: explain ${flag} in production` }).click();
    await page
      .getByRole('dialog', { name: `${flag} in production` })
      .getByText('Flag enabled in production: no')
      .waitFor();
    await page.keyboard.press('Escape');

    // Copy as curl: the same request, with a token placeholder and no cookie.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByText('The curl command was copied.').waitFor();
    const command = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(command).toContain(`curl -X POST '${url}/api/admin/playground/advanced'`);
    expect(command).toContain(`-H 'Authorization: <YOUR_API_TOKEN>'`);
    expect(command).toContain(`"userId":"o'"'"'brien"`);
    expect(command.toLowerCase()).not.toContain('cookie');
    const body = dataOf(command);
    expect(body).toEqual({
      environments: ['development', 'production'],
      projects: [project],
      context: { appName: 'web', userId: user, properties: {} },
    });

    // The command's request, sent with the admin token, answers what the table shows.
    const res = await t.send('POST', '/api/admin/playground/advanced', body);
    expect(res.statusCode, res.body).toBe(200);
    const features = res.json().features as {
      name: string;
      environments: Record<string, { isEnabled: boolean }[]>;
    }[];
    expect(features.map((f) => f.name)).toEqual([flag]);
    const answer = features.map((f) => [
      f.name,
      ...['development', 'production'].map((env) => String(f.environments[env]?.[0]?.isEnabled)),
    ]);
    const shown = await table
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].filter((_, i) => i !== 1).map((c) => c.textContent)),
      );
    expect(shown).toEqual(answer);
    expect(answer).toEqual([[flag, 'true', 'false']]);

    // The URL holds the whole view: opened afresh, it shows the same answer.
    const shared = new URL(page.url());
    expect(shared.searchParams.get('userId')).toBe(user);
    expect(shared.searchParams.getAll('project')).toEqual([project]);
    await page.goto(shared.href);
    const again = page
      .getByRole('table', { name: 'Playground result' })
      .getByRole('row', { name: new RegExp(flag) });
    await expect.poll(() => again.getByRole('cell').nth(2).textContent()).toBe('true');
    expect(await again.getByRole('cell').nth(3).textContent()).toBe('false');
    expect(await page.getByLabel('userId').inputValue()).toBe(user);
    expect(browser.errors).toEqual([]);
  });
});
