import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser, GOOD_PASSWORD } from '../people.js';
import { type Browser, getJson, slug, startUi, stopUi } from './browser.js';

/** The box a locator's element takes on the page, and the box of its next sibling (the track). */
const boxes = (input: Locator) =>
  input.evaluate((el) => {
    const box = (r: DOMRect) => ({ x: r.x, y: r.y, width: r.width, height: r.height });
    return {
      input: box(el.getBoundingClientRect()),
      track: box((el.nextElementSibling as Element).getBoundingClientRect()),
    };
  });

/** Issue 44: what a person (or a tool clicking controls) meets in the UI. */
describe('sign-in toasts and environment switches (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  });
  afterAll(() => stopUi(browser, t));

  it('shows a failed sign-in on the form only: nothing of it is left once signed in', async () => {
    const admin = await createUser(t, 'Admin');
    await page.goto(`${url}/projects`);
    await page.getByLabel('Username or email').fill(admin.username);
    await page.getByLabel(/^Password/).fill(`${GOOD_PASSWORD}-wrong`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('form')
      .getByRole('alert')
      .getByText(/Wrong username or password/)
      .waitFor();
    await page.getByLabel(/^Password/).fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await page.getByText(/Wrong username or password/).count()).toBe(0);
    expect(await page.getByText('AuthenticationRequired').count()).toBe(0);
  });

  it('gives each switch input the switch box; clicking it turns the flag on', async () => {
    const flag = slug('switch');
    const created = await t.send('POST', '/api/admin/projects/default/features', { name: flag });
    expect(created.statusCode, created.body).toBe(200);
    const production = `/api/admin/projects/default/features/${flag}/environments/production`;

    await page.goto(`${url}/projects/default/flags/${flag}`);
    const onFlagPage = page.getByRole('switch', { name: `${flag} in production` });
    await onFlagPage.waitFor({ state: 'attached' });
    const flagPage = await boxes(onFlagPage);
    expect(flagPage.input).toEqual(flagPage.track);
    // No `force`: Playwright clicks the input's centre only if the input itself is hit there.
    await onFlagPage.click();
    await page.getByText(`${flag} is on in production.`).waitFor();
    expect((await getJson(t, production)).enabled).toBe(true);

    await page.goto(`${url}/projects/default`);
    const inList = page.getByRole('switch', { name: `${flag} in production` });
    await inList.waitFor({ state: 'attached' });
    const list = await boxes(inList);
    expect(list.input).toEqual(list.track);
    await inList.click();
    await expect.poll(async () => (await getJson(t, production)).enabled).toBe(false);
  });
});
