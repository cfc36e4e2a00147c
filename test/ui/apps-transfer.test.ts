import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { axeViolations, type Browser, check, pick, signIn, slug, startUi, stopUi } from './browser.js';

/**
 * Applications and import/export in headless Chromium against the real service: an SDK registers
 * and reports an unknown flag, the UI lists the application, shows the unknown flag as an issue and
 * saves an edit; a project's flag is exported, downloaded, validated (refused while the name is taken
 * elsewhere) and imported into another project. Each page passes axe (WCAG 2 A and AA).
 */
describe('web UI: applications and import/export (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
    await signIn(browser, url, (await createUser(t, 'Admin')).username);
  });
  afterAll(() => stopUi(browser, t));

  const send = async (method: string, path: string, body?: unknown, expected = [200, 201, 202]) => {
    const res = await t.send(method, path, body);
    expect(expected, `${method} ${path}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
    return res;
  };

  it('lists a registered application, shows its unknown flag as an issue and saves an edit', async () => {
    const appName = slug('checkout-service');
    const ghost = slug('no-such-flag');
    const known = slug('known-flag');
    await send('POST', '/api/admin/projects/default/features', { name: known });
    const token = (
      await send('POST', '/api/admin/api-tokens', {
        tokenName: slug('sdk'),
        type: 'client',
        environment: 'development',
        projects: ['*'],
      })
    ).json().secret as string;
    const sdk = (path: string, body: unknown) =>
      t.send('POST', path, body, { authorization: token }).then((res) => {
        expect(res.statusCode, res.body).toBe(202);
      });
    await sdk('/api/client/register', {
      appName,
      instanceId: 'pod-1',
      sdkVersion: 'unleash-client-node:6.1.0',
      strategies: ['default', 'flexibleRollout'],
      started: new Date().toISOString(),
      interval: 15000,
    });
    // Flags reach the service with metrics: one exists, one does not.
    const start = new Date().toISOString();
    await sdk('/api/client/metrics', {
      appName,
      instanceId: 'pod-1',
      bucket: { start, stop: start, toggles: { [known]: { yes: 3, no: 1 }, [ghost]: { yes: 0, no: 2 } } },
    });

    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.getByRole('link', { name: appName }).waitFor();
    await page.getByText(`default: development`).waitFor();
    await check(page, 'applications');

    // The search goes to the API: a name that matches nothing empties the list.
    await page.getByLabel('Search applications').fill('zz-nothing-zz');
    await page.getByText('No application name contains "zz-nothing-zz".').waitFor();
    expect(page.url()).toContain('query=zz-nothing-zz');
    await page.getByLabel('Search applications').fill(appName.slice(0, 14));
    await page.getByRole('link', { name: appName }).click();

    await page.getByRole('heading', { name: `Application ${appName}` }).waitFor();
    const issues = page.getByRole('region', { name: /^Issues/ });
    await issues.getByText('Warning: Unknown flags in development').waitFor();
    await issues.getByText(ghost, { exact: true }).waitFor();
    expect(await issues.getByText(known).count()).toBe(0);
    await page.getByRole('cell', { name: 'unleash-client-node:6.1.0 (backend)' }).waitFor();
    await page.getByRole('link', { name: known }).waitFor();
    await check(page, 'application-overview');

    const edit = page.getByRole('region', { name: 'Edit application' });
    await edit.getByLabel('Description').fill('Takes payments');
    await edit.getByLabel('URL').fill('https://example.com/checkout');
    await edit.getByRole('button', { name: 'Save application' }).click();
    await page.getByText(`Application "${appName}" saved.`).waitFor();
    const saved = (await send('GET', `/api/admin/metrics/applications/${appName}`)).json();
    expect(saved).toMatchObject({ description: 'Takes payments', url: 'https://example.com/checkout' });
    await page.getByText('Takes payments', { exact: true }).waitFor();

    // An application nobody ever saw.
    await page.goto(`${url}/applications/${slug('never-seen')}`);
    await page.getByText('Never seen').waitFor();
    expect(browser.errors).toEqual([]);
  });

  it('deletes an application after a confirmation', async () => {
    const appName = slug('old-app');
    await send('POST', `/api/admin/metrics/applications/${appName}`, { description: 'Retired' });
    await page.goto(`${url}/applications/${appName}`);
    await page.getByRole('button', { name: 'Delete application' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete application ${appName}?` });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText(`Application "${appName}" deleted.`).waitFor();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await send('GET', `/api/admin/metrics/applications/${appName}`, undefined, [404]);
  });

  it('exports a project, downloads the JSON and imports it into another project after validation', async () => {
    const source = slug('transfer-from');
    const target = slug('transfer-to');
    const flag = slug('moving-flag');
    await send('POST', '/api/admin/projects', { id: source, name: source });
    await send('POST', '/api/admin/projects', { id: target, name: target });
    await send('POST', `/api/admin/projects/${source}/features`, { name: flag, description: 'Moves' });
    await send('POST', `/api/admin/projects/${source}/features/${flag}/environments/development/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '25', stickiness: 'default', groupId: flag },
    });

    await page.goto(`${url}/admin/import-export`);
    await page.getByRole('heading', { name: 'Import and export' }).waitFor();
    const exporter = page.getByRole('region', { name: 'Export' });
    await pick(page, page, /^Environment/, 'development');
    await pick(page, page, /^Project/, source);
    await exporter.getByRole('button', { name: 'Export' }).click();
    await exporter.getByText(/^1 flag, 1 strategy, .* from development\.$/).waitFor();
    await exporter.getByText(`${flag} (${source})`).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      exporter.getByRole('link', { name: 'Download JSON' }).click(),
    ]);
    const file = await download.path();
    const exported = JSON.parse(await readFile(file, 'utf8'));
    expect(exported.features.map((f: { name: string }) => f.name)).toEqual([flag]);

    const importer = page.getByRole('region', { name: 'Import' });
    await importer.locator('input[type="file"]').setInputFiles({
      name: 'export.json',
      mimeType: 'application/json',
      buffer: await readFile(file),
    });
    await importer.getByText('The document holds 1 flag, 1 strategy').waitFor();
    await pick(page, page, /^Target project/, target);
    await pick(page, page, /^Target environment/, 'development');
    const importButton = importer.getByRole('button', { name: 'Import', exact: true });
    expect(await importButton.isDisabled()).toBe(true);

    // The name is still taken in the source project: validation refuses, Import stays off.
    await importer.getByRole('button', { name: 'Validate' }).click();
    await importer.getByText(/You cannot import a feature that already exist in other projects/).waitFor();
    await importer.getByText(`${flag} (in project ${source})`).waitFor();
    expect(await importButton.isDisabled()).toBe(true);
    expect(await axeViolations(page), 'import-export with errors').toEqual([]);

    // Once the flag is gone from the source, the same document validates.
    await send('DELETE', `/api/admin/projects/${source}/features/${flag}`);
    await send('DELETE', `/api/admin/archive/${flag}`);
    await importer.getByRole('button', { name: 'Validate' }).click();
    await importer
      .getByText(`No errors: the document can be imported into ${target} (development).`)
      .waitFor();
    expect(await importButton.isDisabled()).toBe(false);
    // The screenshot shows the validation outcome and the enabled Import button.
    await importer
      .getByRole('heading', { name: 'Validation' })
      .evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await check(page, 'import-export');

    await importButton.click();
    await importer
      .getByRole('status')
      .getByText(/1 flag, 1 strategy.* imported into/)
      .waitFor();
    const imported = (await send('GET', `/api/admin/projects/${target}/features/${flag}`)).json();
    expect(imported).toMatchObject({ name: flag, project: target, description: 'Moves' });
    const dev = imported.environments.find((e: { name: string }) => e.name === 'development');
    expect(dev.strategies).toEqual([
      expect.objectContaining({
        name: 'flexibleRollout',
        parameters: expect.objectContaining({ rollout: '25' }),
      }),
    ]);
    expect(browser.errors).toEqual([]);
  });

  it('lets an Editor edit the application (UPDATE_APPLICATION) but not delete it (ADMIN)', async () => {
    const appName = slug('editor-app');
    await send('POST', `/api/admin/metrics/applications/${appName}`, { description: 'Looked at' });
    await signIn(browser, url, (await createUser(t, 'Editor')).username);
    await page.goto(`${url}/applications/${appName}`);
    await page.getByText('Looked at', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete application' }).count()).toBe(0);
    const edit = page.getByRole('region', { name: 'Edit application' });
    await edit.getByLabel('Description').fill('Edited by an editor');
    await edit.getByRole('button', { name: 'Save application' }).click();
    await page.getByText(`Application "${appName}" saved.`).waitFor();
    const saved = (await send('GET', `/api/admin/metrics/applications/${appName}`)).json();
    expect(saved).toMatchObject({ description: 'Edited by an editor' });

    // A Viewer lacks UPDATE_APPLICATION: no form.
    await signIn(browser, url, (await createUser(t, 'Viewer')).username);
    await page.goto(`${url}/applications/${appName}`);
    await page.getByText('Edited by an editor', { exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Edit application' }).count()).toBe(0);
  });
});
