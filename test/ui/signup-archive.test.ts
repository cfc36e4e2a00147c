import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser, GOOD_PASSWORD } from '../people.js';
import { axeViolations, type Browser, check, focused, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Signing up with an invite link and the archive (revive, delete for good, hidden from Viewers), in
 * headless Chromium against the real service; both pages pass axe (WCAG 2 A and AA).
 */
describe('web UI: signup with an invite link, and the archive (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  });
  afterAll(() => stopUi(browser, t));

  const send = async (method: string, path: string, body?: unknown, expected = [200, 201, 202]) => {
    const res = await t.send(method, path, body);
    expect(expected, `${method} ${path}: ${res.body}`).toContain(res.statusCode);
    return res;
  };

  it('creates an account with an invite link, then signs in with it', async () => {
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const token = (
      await send('POST', '/api/admin/invite-link/tokens', { name: 'UI signup', expiresAt })
    ).json();
    const link = new URL(token.url);
    expect(link.pathname).toBe('/new-user');

    await browser.context.clearCookies();
    await page.goto(`${url}${link.pathname}${link.search}`);
    const form = page.locator('form');
    await form.getByLabel('Email').waitFor();
    await page.getByRole('heading', { name: 'Create your Flagship account', level: 1 }).waitFor();
    await check(page, 'signup');

    // The service's password rules, shown with its message under the field.
    const email = `${slug('newcomer')}@example.com`;
    await form.getByLabel('Name', { exact: true }).fill('New Comer');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel(/^Password/).fill('short');
    await form.getByRole('button', { name: 'Create account' }).click();
    const problem = form.getByRole('alert').filter({ hasText: 'Could not create the account' });
    await problem.getByText('The password must be at least 10 characters long.').waitFor();
    expect(await axeViolations(page), 'signup with errors').toEqual([]);

    await form.getByLabel(/^Password/).fill(GOOD_PASSWORD);
    await form.getByRole('listitem').filter({ hasText: 'a number' }).getByText('(done)').waitFor();
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Sign in with your email and the password you chose.').waitFor();
    await page.getByRole('heading', { name: 'Sign in to Flagship' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');

    const users = (await send('GET', '/api/admin/user-admin')).json().users as {
      email: string;
      name: string;
      rootRole: number;
    }[];
    expect(users.find((u) => u.email === email)).toMatchObject({ name: 'New Comer', rootRole: 3 });

    // The new account signs in and lands on the projects.
    await page.getByLabel('Username or email').fill(email);
    await page.getByLabel(/^Password/).fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/projects');

    // The same email again: the service's 409 message.
    await browser.context.clearCookies();
    await page.goto(`${url}${link.pathname}${link.search}`);
    await form.getByLabel('Email').fill(email);
    await form.getByLabel(/^Password/).fill(GOOD_PASSWORD);
    await form.getByRole('button', { name: 'Create account' }).click();
    await form.getByRole('alert').getByText('A user with that username or email already exists.').waitFor();

    // A disabled link, and one that never existed, show the error instead of the form.
    await send('PUT', `/api/admin/invite-link/tokens/${token.secret}`, { enabled: false });
    for (const search of [link.search, '?invite=0123456789abcdef', '']) {
      await page.goto(`${url}/new-user${search}`);
      await page.getByRole('alert').filter({ hasText: 'This invite link does not work' }).waitFor();
      expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(0);
    }
    expect(await axeViolations(page), 'invalid invite').toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  const createArchived = async (project: string, name: string) => {
    await send('POST', `/api/admin/projects/${project}/features`, { name, description: `About ${name}` });
    await send('DELETE', `/api/admin/projects/${project}/features/${name}`);
  };
  const archivedNames = async () =>
    ((await send('GET', '/api/admin/archive/features')).json().features as { name: string }[]).map(
      (f) => f.name,
    );

  it('revives a flag and deletes another for good after typing its name', async () => {
    const prefix = slug('old');
    const [kept, gone] = [`${prefix}-kept`, `${prefix}-gone`];
    await createArchived('default', kept);
    await createArchived('default', gone);
    await signIn(browser, url, (await createUser(t, 'Admin')).username, { from: '/login' });

    await page.getByRole('link', { name: 'Archive' }).click();
    await page.getByRole('heading', { name: 'Archive', level: 1 }).waitFor();
    await page.getByLabel('Search archived flags').fill(prefix);
    await page.getByRole('row').filter({ hasText: kept }).waitFor();
    await page.getByRole('row').filter({ hasText: gone }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe(prefix);
    await check(page, 'archive');

    await page.getByRole('button', { name: `Revive ${kept}` }).click();
    await page.getByText(`Flag "${kept}" revived in project default.`).waitFor();
    await page.getByRole('row').filter({ hasText: kept }).waitFor({ state: 'detached' });
    expect((await send('GET', `/api/admin/projects/default/features/${kept}`)).json()).toMatchObject({
      archived: false,
    });
    expect(await archivedNames()).not.toContain(kept);

    await page.getByRole('button', { name: `Delete ${gone}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete flag ${gone} for good?` });
    const confirm = dialog.getByRole('button', { name: 'Delete for good' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type the flag name to confirm').fill(gone.slice(0, -1));
    expect(await confirm.isDisabled()).toBe(true);
    expect(await axeViolations(page), 'delete dialog').toEqual([]);
    await dialog.getByLabel('Type the flag name to confirm').fill(gone);
    await confirm.click();
    await page.getByText(`Flag "${gone}" deleted for good.`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await archivedNames()).not.toContain(gone);
    await send('GET', `/api/admin/projects/default/features/${gone}`, undefined, [404]);
    await page.getByRole('row').filter({ hasText: gone }).waitFor({ state: 'detached' });

    // The palette lists the navigation's pages, the archive among them.
    await page.keyboard.press('Control+K');
    const palette = page.getByRole('dialog', { name: 'Go to a page or flag' });
    await focused(palette.getByRole('combobox', { name: 'Search pages and flags' }));
    await page.keyboard.type('arch');
    await palette.getByRole('option', { name: 'Archive' }).waitFor();
    await page.keyboard.press('Escape');
    expect(browser.errors).toEqual([]);
  });

  it('shows revive and delete only where the user may (Viewer none, Editor the default project)', async () => {
    const other = slug('elsewhere');
    await send('POST', '/api/admin/projects', { id: other, name: other });
    const [inDefault, inOther] = [slug('arch-default'), slug('arch-other')];
    await createArchived('default', inDefault);
    await createArchived(other, inOther);

    await signIn(browser, url, (await createUser(t, 'Viewer')).username, { from: '/login' });
    await page.goto(`${url}/archive`);
    await page.getByRole('row').filter({ hasText: inDefault }).waitFor();
    await page.getByRole('row').filter({ hasText: inOther }).waitFor();
    expect(await page.getByRole('button', { name: /^(Revive|Delete) / }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);

    await signIn(browser, url, (await createUser(t, 'Editor')).username, { from: '/login' });
    await page.goto(`${url}/archive`);
    await page.getByRole('button', { name: `Revive ${inDefault}` }).waitFor();
    await page.getByRole('button', { name: `Delete ${inDefault}` }).waitFor();
    await page.getByRole('row').filter({ hasText: inOther }).waitFor();
    expect(await page.getByRole('button', { name: new RegExp(`^(Revive|Delete) ${inOther}$`) }).count()).toBe(
      0,
    );
    expect(browser.errors).toEqual([]);
  });
});
