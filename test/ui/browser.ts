import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
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
