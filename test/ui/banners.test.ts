import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, getJson, signIn, startUi, stopUi } from './browser.js';

/** Instance banners (issue 48): what an Admin enables, everyone signed in sees above every page. */
describe('banners in the web UI (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  }, 120_000);
  afterAll(() => stopUi(browser, t));

  it('shows the enabled banners, and a banner’s dialog, to a Viewer', async () => {
    const banner = (
      await t.send('POST', '/api/admin/banners', {
        message: 'Maintenance tonight',
        variant: 'warning',
        link: 'dialog',
        linkText: 'Details',
        dialogTitle: 'Maintenance',
        dialog: 'From 22:00 to 23:00.',
      })
    ).json();
    await t.send('POST', '/api/admin/banners', { message: 'Hidden one', enabled: false });
    const viewer = await createUser(t, 'Viewer');
    await signIn(browser, url, viewer.username);
    const banners = page.getByRole('status').filter({ hasText: 'Maintenance tonight' });
    await banners.waitFor();
    expect(await page.getByText('Hidden one').count()).toBe(0);
    await check(page, 'banner');
    await banners.getByRole('button', { name: 'Details' }).click();
    await page.getByRole('dialog', { name: 'Maintenance' }).getByText('From 22:00 to 23:00.').waitFor();
    expect(banner.id).toBeGreaterThan(0);
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it('an Admin creates, hides and deletes a banner on the banners page', async () => {
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);
    await page.getByRole('link', { name: 'Banners' }).click();
    await page.getByLabel('Message').fill('New release out');
    await page.getByRole('button', { name: 'Create banner' }).click();
    await page.getByText('Banner created.').waitFor();
    await page.getByRole('status').filter({ hasText: 'New release out' }).waitFor();
    const made = (await getJson(t, '/api/admin/banners')).banners.find(
      (b: { message: string }) => b.message === 'New release out',
    );
    expect(made).toMatchObject({ enabled: true, variant: 'info' });
    await check(page, 'banners-admin');
    await page.getByRole('switch', { name: `Show banner ${made.id}` }).click({ force: true });
    await expect
      .poll(
        async () =>
          (await getJson(t, '/api/admin/banners')).banners.find((b: { id: number }) => b.id === made.id)
            .enabled,
      )
      .toBe(false);
    await page.getByRole('button', { name: `Delete banner ${made.id}` }).click();
    await page.getByText('Banner deleted.').waitFor();
    expect((await getJson(t, '/api/admin/banners')).banners.map((b: { id: number }) => b.id)).not.toContain(
      made.id,
    );
  }, 60_000);
});
