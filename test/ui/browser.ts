import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from '../harness.js';
import { GOOD_PASSWORD } from '../people.js';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

export { CHROMIUM } from './chromium.js';

/** Builds dist/ui when it is missing or older than ui/ (CI builds it before the tests). */
export function ensureUiBuilt() {
  execFileSync(process.execPath, ['scripts/ui-build.mjs'], { stdio: 'inherit' });
}

/**
 * Screenshots go to docs/screenshots (committed, shown in the README) when SCREENSHOTS=1, else to
 * .tmp/screenshots, so that an ordinary test run leaves the working tree as it was.
 */
export const screenshotDir = process.env.SCREENSHOTS === '1' ? 'docs/screenshots' : '.tmp/screenshots';

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors and failed requests the pages raised. */
  errors: string[];
  close(): Promise<void>;
}

/** Headless Debian Chromium with a fresh profile (playwright-core downloads nothing). */
export async function launch(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'flagship-ui-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    // No transitions (the UI respects it): axe then never sees text mid-fade, whose blended colour
    // fails the contrast rule for a moment.
    reducedMotion: 'reduce',
    args: CHROMIUM_ARGS,
  });
  const errors: string[] = [];
  context.on('weberror', (error) => errors.push(String(error.error())));
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  mkdirSync(screenshotDir, { recursive: true });
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

let axeSource: string | undefined;

/** WCAG 2 A and AA violations on the page as it is now (axe-core, run in the page). */
export async function axeViolations(page: Page): Promise<{ id: string; help: string; nodes: string[] }[]> {
  axeSource ??= await readFile('node_modules/axe-core/axe.min.js', 'utf8');
  if (!(await page.evaluate('typeof window.axe !== "undefined"')))
    // Evaluated, not added as an inline <script>: the pages' CSP (script-src 'self') refuses those.
    await page.evaluate(axeSource);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ' ' + n.html.slice(0, 160) + ' ' + (n.any[0]?.message ?? '')) })))`);
}

export async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/** A unique name that is safe in URLs and as a project id or flag name. */
export const slug = (prefix: string) => uniqueName(prefix).replace(/[^a-z0-9-]/gi, '-');

/** The service on a free port, the UI built, and a fresh Chromium: what every browser test starts with. */
export interface UiSession {
  t: TestApp;
  url: string;
  browser: Browser;
  page: Page;
}

export async function startUi(): Promise<UiSession> {
  ensureUiBuilt();
  const t = await startTestApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launch();
  return { t, url, browser, page: browser.page };
}

/** Closes what startUi opened (either may be missing when start-up failed). */
export async function stopUi(browser: Browser | undefined, t: TestApp | undefined) {
  await browser?.close();
  await t?.close();
}

/** Signs in through the login form with fresh cookies and waits for the projects page. */
export async function signIn(
  browser: Browser,
  url: string,
  username: string,
  { from = '/projects' }: { from?: string } = {},
) {
  const page = browser.page;
  await browser.context.clearCookies();
  await page.goto(`${url}${from}`);
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel(/^Password/).fill(GOOD_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

/** No WCAG A/AA violations on the page as shown (once the network is idle); then a screenshot of it. */
export async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  expect(await axeViolations(page), name).toEqual([]);
  await screenshot(page, name);
}

/** GET through the test app, which must answer 200; the JSON body. */
export async function getJson(t: TestApp, path: string) {
  const res = await t.send('GET', path);
  expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
  return res.json();
}

/** Opens the combobox labelled `label` in `scope` and picks the option (options render on the page). */
export async function pick(page: Page, scope: Locator | Page, label: string | RegExp, option: string) {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Waits until `field` holds the keyboard focus (keys pressed before that go elsewhere). */
export async function focused(field: Locator) {
  await field.waitFor();
  await expect
    .poll(() => field.evaluate((el) => el === el.ownerDocument.activeElement), { timeout: 10_000 })
    .toBe(true);
}
