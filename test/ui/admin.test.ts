import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, uniqueName } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * The UI's second wave in headless Chromium against the real service: variants with weights on a
 * flag, project health, API tokens (secret shown once), users and context fields; each new page
 * passes axe (WCAG 2 A and AA), and a Viewer sees neither the admin pages nor their edit controls.
 */
describe('web UI: variants, health and admin pages (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const project = slug('ui-admin');
  const flag = slug('banner');

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    expect((await t.send('POST', '/api/admin/projects', { id: project, name: project })).statusCode).toBe(
      201,
    );
    const created = await t.send('POST', `/api/admin/projects/${project}/features`, { name: flag });
    expect(created.statusCode, created.body).toBe(200);
  });
  afterAll(() => stopUi(browser, t));

  it('sets variants with weights and a payload on a flag, and shows the project health', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.goto(`${url}/projects/${project}`);
    const health = page.getByRole('region', { name: 'Project health' });
    await health.getByRole('heading', { name: 'Health 100%' }).waitFor();
    await health
      .getByRole('img', { name: 'Flags by state: 1 active, 0 potentially stale, 0 stale' })
      .waitFor();
    await check(page, 'project-health');

    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    const development = page.getByRole('region', { name: 'Environment development' });
    await development.getByRole('button', { name: 'Edit variants in development' }).click();
    const dialog = page.getByRole('dialog', { name: `Variants of ${flag} in development` });
    await dialog.getByRole('button', { name: 'Add variant' }).click();
    await dialog.getByRole('button', { name: 'Add variant' }).click();
    await dialog.getByLabel('Variant 1 name').fill('blue');
    await dialog.getByLabel('Variant 2 name').fill('red');
    await dialog.getByRole('checkbox', { name: 'Fixed weight for variant 1' }).check();
    await dialog.getByLabel('Variant 1 weight %').fill('30');
    await pick(page, dialog, 'Variant 1 payload type', 'JSON');
    await dialog.getByLabel('Variant 1 payload', { exact: true }).fill('{"color":');
    await dialog.getByText('Not valid JSON.').waitFor();
    expect(await dialog.getByRole('button', { name: 'Save variants' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Variant 1 payload', { exact: true }).fill('{"color":"blue"}');
    await dialog.getByRole('img', { name: 'Variant weights: blue 30%, red 70%' }).waitFor();
    await check(page, 'flag-variants-editor');
    await dialog.getByRole('button', { name: 'Save variants' }).click();
    await page.getByText('Variants saved in development.').waitFor();

    const saved = await getJson(
      t,
      `/api/admin/projects/${project}/features/${flag}/environments/development/variants`,
    );
    expect(saved.variants).toEqual([
      expect.objectContaining({
        name: 'blue',
        weight: 300,
        weightType: 'fix',
        stickiness: 'default',
        payload: { type: 'json', value: '{"color":"blue"}' },
      }),
      expect.objectContaining({ name: 'red', weight: 700, weightType: 'variable', stickiness: 'default' }),
    ]);
    await development.getByRole('img', { name: 'Variants in development: blue 30%, red 70%' }).waitFor();
    await page.getByText('Tags: none').waitFor();
    await check(page, 'flag-with-variants');
    expect(browser.errors).toEqual([]);
  });

  it('does not overwrite variants someone changed while the editor was open (If-Match, 412)', async () => {
    const edited = slug('raced');
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/features`, { name: edited })).statusCode,
    ).toBe(200);
    const variantsUrl = `/api/admin/projects/${project}/features/${edited}/environments/development/variants`;
    await page.goto(`${url}/projects/${project}/flags/${edited}`);
    const development = page.getByRole('region', { name: 'Environment development' });
    await development.getByRole('button', { name: 'Edit variants in development' }).click();
    const dialog = page.getByRole('dialog', { name: `Variants of ${edited} in development` });
    await dialog.getByRole('button', { name: 'Add variant' }).click();
    // Someone else saves other variants meanwhile.
    const other = await t.send('PUT', variantsUrl, [
      { name: 'green', weight: 1000, weightType: 'variable', stickiness: 'default' },
    ]);
    expect(other.statusCode, other.body).toBe(200);
    await dialog.getByLabel('Variant 1 name').fill('teal');
    await dialog.getByRole('button', { name: 'Save variants' }).click();
    await page.getByText('Changed by someone else').waitFor();
    // Their change stands; reopened, the editor starts from it.
    expect((await getJson(t, variantsUrl)).variants.map((v: { name: string }) => v.name)).toEqual(['green']);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await development.getByRole('img', { name: 'Variants in development: green 100%' }).waitFor();
    await development.getByRole('button', { name: 'Edit variants in development' }).click();
    expect(await dialog.getByLabel('Variant 1 name').inputValue()).toBe('green');
    await dialog.getByRole('button', { name: 'Save variants' }).click();
    await page.getByText('Variants saved in development.').waitFor();
  });

  it('creates an API token whose secret is shown once, and deletes it with that secret', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByRole('button', { name: 'New API token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API token' });
    const name = uniqueName('sdk');
    await dialog.getByLabel('Token name').fill(name);
    await pick(page, dialog, 'Type', 'Frontend SDK');
    await pick(page, dialog, 'Project', project);
    await pick(page, dialog, 'Environment', 'production');
    await check(page, 'api-token-create');
    await dialog.getByRole('button', { name: 'Create token' }).click();

    const shown = page.getByRole('dialog', { name: 'Token created' });
    const secret = (await shown.getByLabel(`Secret of ${name}`).textContent())?.trim() ?? '';
    expect(secret).toMatch(new RegExp(`^${project}:production\\.`));
    await shown.getByRole('button', { name: 'Copy secret' }).waitFor();
    await check(page, 'api-token-secret');
    const listed = (await getJson(t, '/api/admin/api-tokens')).tokens.find(
      (x: { tokenName: string }) => x.tokenName === name,
    );
    expect(listed).toEqual(
      expect.objectContaining({ type: 'frontend', environment: 'production', projects: [project] }),
    );
    expect(listed.secret).not.toBe(secret);
    await shown.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name, exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await check(page, 'api-tokens');

    // Deleting takes the full secret (lists hold only its start); a wrong one changes nothing.
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${name}` });
    await confirm.getByLabel('Token secret').fill(`${secret}x`);
    await confirm.getByRole('button', { name: 'Delete token' }).click();
    await page.getByText(`That is not the secret of ${name}.`).waitFor();
    await confirm.getByLabel('Token secret').fill(secret);
    await confirm.getByRole('button', { name: 'Delete token' }).click();
    await page.getByText(`Token ${name} deleted.`).waitFor();
    const after = (await getJson(t, '/api/admin/api-tokens')).tokens as { tokenName: string }[];
    expect(after.some((x) => x.tokenName === name)).toBe(false);
    expect(browser.errors).toEqual([]);
  });

  it('creates a user with a role and a context field with legal values', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    const username = slug('ana');
    await dialog.getByLabel('Username').fill(username);
    await dialog.getByLabel('Name', { exact: true }).fill('Ana Editor');
    await pick(page, dialog, 'Role', 'Editor');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await page.getByText(`User ${username} created.`).waitFor();
    const { users, rootRoles } = await getJson(t, '/api/admin/user-admin');
    const editor = rootRoles.find((r: { name: string }) => r.name === 'Editor');
    expect(users.find((u: { username: string }) => u.username === username)?.rootRole).toBe(editor.id);
    await check(page, 'users');

    await page.getByRole('link', { name: 'Context fields' }).click();
    await page.getByRole('button', { name: 'New context field' }).click();
    const field = page.getByRole('dialog', { name: 'New context field' });
    const fieldName = uniqueName('tier').replace(/[^a-z0-9]/gi, '');
    await field.getByLabel('Name').fill(fieldName);
    const values = field.getByRole('combobox', { name: 'Legal values' });
    await values.fill('gold');
    await values.press('Enter');
    await values.fill('silver');
    await values.press('Enter');
    await field.getByRole('button', { name: 'Create context field' }).click();
    await page.getByRole('cell', { name: 'gold, silver' }).waitFor();
    const context = (await getJson(t, `/api/admin/context/${fieldName}`)) as {
      legalValues: { value: string }[];
    };
    expect(context.legalValues.map((v) => v.value)).toEqual(['gold', 'silver']);
    await check(page, 'context-fields');
    expect(browser.errors).toEqual([]);
  });

  it('shows a Viewer neither the admin pages nor edit controls', async () => {
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    expect(await page.getByRole('link', { name: 'API tokens' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Context fields' }).click();
    await page.getByRole('heading', { name: 'Context fields' }).waitFor();
    await page.getByRole('cell', { name: 'userId' }).waitFor();
    expect(await page.getByRole('button', { name: 'New context field' }).count()).toBe(0);
    await page.goto(`${url}/projects/${project}/flags/${flag}`);
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();
    await page.getByRole('img', { name: 'Variants in development: blue 30%, red 70%' }).waitFor();
    expect(await page.getByRole('button', { name: /variants/i }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
