import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { createUser, GOOD_PASSWORD } from '../people.js';
import { type Browser, getJson, launch, screenshot, slug } from './browser.js';
import { serveUnleashUi, UNLEASH_UI_VERSION } from './unleash-frontend.js';

/**
 * Unleash's own web UI (8.2, unmodified, from the unleash-server package) served in front of this
 * service, driven in headless Chromium through a normal day's first steps: its login form, a flag
 * created in a project, a gradual rollout with a constraint and a variant, the environment turned
 * on, the flag's event log, sign-out. Every API answer it gets must be one it expects (no status
 * of 400 or more besides the session check before sign-in), and what it wrote must read back.
 */
describe(`the unmodified Unleash ${UNLEASH_UI_VERSION} web UI against this API`, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ui: { url: string; close(): Promise<void> };
  let admin: { username: string };
  const flag = slug('unleash-ui');
  /** API answers of 400 or more, as "status METHOD path". */
  const refused: string[] = [];
  /** What React recovered from while rendering (the `cause` of its error #520). */
  const recovered: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const service = await t.app.listen({ port: 0, host: '127.0.0.1' });
    ui = await serveUnleashUi(service);
    admin = await createUser(t, 'Admin');
    browser = await launch();
    page = browser.page;
    // Its bundle is several megabytes of JavaScript: with the rest of the suite running beside it on
    // two cores, a render can hold the page for more than the harness's 10 s per action.
    page.setDefaultTimeout(30_000);
    // React reports an error it recovered from with the real one as `cause`; the page logs it.
    await browser.context.addInitScript(() => {
      const report = window.reportError;
      window.reportError = (error: unknown) => {
        const cause = (error as { cause?: { message?: string } } | undefined)?.cause;
        if (cause) console.log(`recovered from: ${cause.message}`);
        report(error);
      };
    });
    page.on('console', (message) => {
      const text = message.text();
      if (text.startsWith('recovered from: ')) recovered.push(text.slice(16));
    });
    // Its index.html links Google's fonts: requests off this machine are refused at once.
    await browser.context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    page.on('response', (response: Response) => {
      const { pathname } = new URL(response.url());
      if (response.status() >= 400 && !pathname.startsWith('/static/'))
        refused.push(`${response.status()} ${response.request().method()} ${pathname}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.close();
    await t?.close();
  });

  it('shows its login form and signs in against this service', async () => {
    await page.goto(`${ui.url}/`);
    await page.getByLabel('Email').fill(admin.username);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    // Its dashboard lists the default project for a user with a root role.
    await page.getByRole('link', { name: 'projects/default' }).waitFor();
    await screenshot(page, 'unleash-ui-dashboard');
    // Before sign-in, only its admin API reads were refused, as signed out (401); its login form
    // is drawn from the 401 of the session check (`type`, `path`).
    expect(refused).toContain('401 GET /api/admin/user');
    expect(refused.filter((r) => !r.startsWith('401 GET /api/admin/'))).toEqual([]);
    refused.length = 0;
  }, 150_000);

  it('creates a flag, adds a gradual rollout with a constraint and a variant, and turns it on', async () => {
    await page.goto(`${ui.url}/projects/default`);
    // The header's button and, in an empty project, the onboarding's: the same dialog.
    await page.getByTestId('NAVIGATE_TO_CREATE_FEATURE').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'feature flag name' }).fill(flag);
    await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('made in Unleash UI');
    await dialog.getByRole('button', { name: 'Create feature flag' }).click();
    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();

    const development = page.getByRole('heading', { name: /^Environment development/, level: 3 });
    await development.getByRole('button', { name: 'Add strategy' }).click();
    // The second "Configure": Gradual rollout (the first is the project's default strategy).
    await page.getByRole('dialog').getByRole('button', { name: 'Configure' }).nth(1).click();
    await page.getByRole('heading', { name: 'Gradual rollout', level: 1 }).waitFor();
    await page.getByRole('spinbutton').fill('25');

    // The context field list holds the root context fields (`include=root`).
    await page.getByRole('tab', { name: /^Targeting/ }).click();
    await page.getByRole('button', { name: 'Add constraint' }).click();
    await page.getByRole('combobox', { name: 'Context Field' }).click();
    await page.getByRole('option', { name: 'userId' }).click();
    await page.getByRole('button', { name: 'Add values' }).click();
    await page.getByRole('textbox', { name: 'Constraint Value' }).fill('u1, u2');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    // A click beside it closes the values' popover (modal: the form is hidden from the roles meanwhile).
    await page.mouse.click(300, 600);

    await page.getByRole('tab', { name: /^Variants/ }).click();
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.getByRole('textbox', { name: 'Variant name' }).fill('blue');
    await page.getByRole('textbox', { name: 'Value' }).fill('navy');
    await page.getByRole('button', { name: 'Save strategy' }).click();

    await page.getByRole('heading', { name: flag, level: 1 }).waitFor();
    await development.getByText('1 strategy added').waitFor();
    await page.getByRole('switch', { name: 'development' }).click();
    const env = async () =>
      (await getJson(t, `/api/admin/projects/default/features/${flag}/environments/development`)).enabled;
    await expect.poll(env).toBe(true);

    const stored = await getJson(t, `/api/admin/projects/default/features/${flag}`);
    expect(stored.description).toBe('made in Unleash UI');
    expect(stored.createdBy.name).toBe(admin.username);
    const [strategy] = stored.environments.find((e: { name: string }) => e.name === 'development').strategies;
    expect(strategy).toMatchObject({
      name: 'flexibleRollout',
      parameters: { rollout: '25', stickiness: 'default', groupId: flag },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }],
      variants: [{ name: 'blue', weight: 1000, payload: { type: 'string', value: 'navy' } }],
    });
    await screenshot(page, 'unleash-ui-flag');
    expect(refused).toEqual([]);
  }, 150_000);

  it("shows the flag's event log, newest first", async () => {
    await page.getByRole('tab', { name: 'Event log' }).click();
    await page.getByRole('heading', { name: 'Event log (3)', level: 1 }).waitFor();
    const types = await page.locator('main li dt:text-is("Event:") + dd').allTextContents();
    expect(types).toEqual(['feature-environment-enabled', 'feature-strategy-add', 'feature-created']);
    expect(refused).toEqual([]);
  }, 150_000);

  it('signs out back to its login form', async () => {
    await page.getByRole('button', { name: 'U', exact: true }).click();
    // Its form posts to /logout; the service ends the session and redirects to its start page.
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByText('Sign in to your instance').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('flagship-session');
    expect(refused.filter((r) => !r.startsWith('401 GET /api/admin/'))).toEqual([]);
    // Its strategy form reads `environmentId` from the address while the save navigates away,
    // throws, and React renders again: a fault of that page, not of an answer (nothing else).
    expect(recovered.filter((e) => e !== 'Missing required query param: environmentId')).toEqual([]);
    expect(browser.errors.filter((e) => !e.includes('Minified React error #520'))).toEqual([]);
    expect(browser.errors.length).toBe(recovered.length);
  }, 150_000);
});
