import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../harness.js';
import { createUser } from '../people.js';
import { type Browser, check, signIn, slug, startUi, stopUi } from './browser.js';

/** The flag list's page size (ui/src/pages/ProjectFlags.tsx). */
const PAGE = 200;

/**
 * Issue 16: the flag list of a project with 10,000 flags shows its first rows fast and renders only
 * the rows in view. Its own file (own service, database and Chromium), so that its 10,000-row load
 * never eats into the time of the journey's tests. `bench/ui-first-rows.ts` measures the same
 * navigation in detail (target ≤ 1 s; the assertion here leaves room for a loaded CI machine).
 */
describe('web UI: a project with 10,000 flags (headless Chromium)', () => {
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ t, url, browser, page } = await startUi());
  });
  afterAll(() => stopUi(browser, t));

  it('shows the first rows of a 10,000-flag project fast, rendering only the visible ones', async () => {
    const big = slug('big');
    expect((await t.send('POST', '/api/admin/projects', { id: big, name: 'Big project' })).statusCode).toBe(
      201,
    );
    // Volume by SQL (10,000 API calls would take minutes); every read below goes through the UI.
    await t.database.session(async (run) => {
      await run(
        `INSERT INTO features (name, project, type, description, created_at)
         SELECT $1 || '-' || lpad(i::text, 5, '0'), $2, 'release', 'Flag ' || i, now() - (10000 - i) * interval '1 minute'
         FROM generate_series(1, 10000) i`,
        [big, big],
      );
      await run(
        `INSERT INTO feature_environments (feature_name, environment, enabled)
         SELECT f.name, pe.environment_name, f.name LIKE '%5' FROM features f
         JOIN project_environments pe ON pe.project_id = f.project WHERE f.project = $1`,
        [big],
      );
    });
    const admin = await createUser(t, 'Admin');
    await signIn(browser, url, admin.username);

    const started = Date.now();
    await page.goto(`${url}/projects/${big}`);
    // Also timed in the page: navigation start to the first frame showing the row. The time seen
    // here includes waiting for this process, which also runs the service (PGlite in it): the
    // health report built after the rows appeared blocks it for a second at this size.
    const shown = await page.waitForFunction(
      (name) => [...document.querySelectorAll('a')].some((a) => a.textContent === name) && performance.now(),
      `${big}-00001`,
      { polling: 'raf' },
    );
    await page.getByRole('link', { name: `${big}-00001` }).waitFor();
    const firstRowsMs = Date.now() - started;
    const inPageMs = Math.round((await shown.jsonValue()) as number);
    console.log(
      `10,000 flags: first rows after ${firstRowsMs} ms, shown ${inPageMs} ms after navigation start (page of ${PAGE}, virtualised)`,
    );
    // Bounded on the page's own clock: `firstRowsMs` also counts this process's event loop, which
    // runs the service and on a loaded two-core CI machine was seen blocked for seconds after the
    // rows were already on screen (7.2 s seen, 2.5 s of it in the page; alone: 1.1-2.1 s).
    expect(inPageMs).toBeLessThan(5_000);
    await page.getByText('10000 flags').waitFor();
    // One page is loaded, but only the rows in view (plus overscan) are in the DOM.
    const rendered = await page.getByRole('row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    await check(page, 'project-flags');

    // Scrolling the list brings the page's last rows into the DOM.
    const last = page.getByRole('link', { name: `${big}-00${PAGE}` });
    await expect
      .poll(async () => {
        await page.evaluate("document.querySelector('.flag-scroller').scrollTop = 1e9");
        return last.count();
      })
      .toBe(1);
    // The next page comes from the server, and the page number is in the URL.
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await page.getByRole('link', { name: `${big}-00${PAGE + 1}` }).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(browser.errors).toEqual([]);
  });
});
