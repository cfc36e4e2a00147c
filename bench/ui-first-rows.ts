/**
 * The web UI's flag list of a project with 10,000 flags (issue 16: "first rows shown ≤ 1 s on
 * localhost"): where the time between navigation and the first row goes. Figures in
 * bench/RESULTS.md, "Web UI".
 *   npx tsx bench/ui-first-rows.ts                 PGlite (a temp dir), 10 navigations
 *   npx tsx bench/ui-first-rows.ts --pg            PostgreSQL (a scratch database on BENCH_PG_URL)
 *   npx tsx bench/ui-first-rows.ts --runs 20 --cold   clear the browser cache before every navigation
 *   npx tsx bench/ui-first-rows.ts --verify-cache     the service's read cache rebuilds every hit, as in the tests
 *
 * The service (tsx, or dist/main.js with BENCH_DIST=1) runs on a scratch database with one project
 * of --flags flags inserted by SQL as test/ui/big-project.test.ts does (two environments, no
 * ANALYZE). Headless Chromium (/usr/bin/chromium, the flags of test/ui/browser.ts `launch`) signs in
 * through the form, then loads /projects/<big> --runs times: the first navigation is cold (empty
 * browser cache, the service's read cache empty), the others reuse the cached assets unless --cold.
 * Per navigation: goto → first row link visible (wall clock, as the test measures), the frame the
 * row appeared in (performance.now() in the page, from navigation start), and from the page's
 * Resource Timing the start, time to first byte and end of every API call and the lazy chunks
 * (ms from navigation start). Prints a table and the median/p90; writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { compileSearch, parseSearch } from '../src/features/search/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/ui/chromium.js';
import { createDatabase, scratchCleanup } from './lib/db.js';
import { median, percentile } from './lib/measure.js';
import { machineFacts } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'boolean', default: false },
    runs: { type: 'string', default: '10' },
    flags: { type: 'string', default: '10000' },
    /** Clear the browser cache before every navigation (every run loads the chunks). */
    cold: { type: 'boolean', default: false },
    /** READ_CACHE_VERIFY=true, as in the tests: every cached read is also rebuilt (a cold read each time). */
    'verify-cache': { type: 'boolean', default: false },
    /** EXPLAIN ANALYZE of the first page's search statement at the end (the service stopped). */
    explain: { type: 'boolean', default: false },
  },
});
const engine = args.pg ? 'postgres' : 'pglite';
const RUNS = Number(args.runs);
const FLAGS = Number(args.flags);
const PASSWORD = 'Correct-Horse-7-Battery';
const PROJECT = 'big';
const log = (m: string) => console.log(m);

interface Timing {
  /** ms from navigation start */
  start: number;
  ttfb: number;
  end: number;
  bytes: number;
}

/** The Resource/Navigation Timing fields the bench reads. */
interface Entry {
  name: string;
  startTime: number;
  responseStart: number;
  responseEnd: number;
  encodedBodySize: number;
}

interface Run {
  wallMs: number;
  /** performance.now() in the frame the first row link was in the DOM. */
  rowMs: number;
  html: Timing | undefined;
  resources: Record<string, Timing>;
}

/** The name a resource is shown under: API path without query, or the chunk's name without its hash. */
function label(url: string): string | undefined {
  const u = new URL(url);
  if (u.pathname.includes('/api/')) return u.pathname.replace(`/projects/${PROJECT}`, '/projects/:p');
  const chunk = /\/assets\/(.+?)-[\w-]{8}\.(js|css)$/.exec(u.pathname);
  if (chunk) return `${chunk[1]}.${chunk[2]}`;
  return undefined;
}

async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const { databases, cleanup } = scratchCleanup(log, stopAll);

async function main() {
  log(
    `ui-first-rows: ${engine}, ${FLAGS} flags, ${RUNS} navigations${args.cold ? ', browser cache cleared each time' : ''}${args['verify-cache'] ? ', READ_CACHE_VERIFY' : ''}`,
  );
  log(machineFacts());
  // dist/ui as the browser tests use it (built only when ui/ is newer).
  execFileSync(process.execPath, ['scripts/ui-build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const db = await createDatabase(engine);
  databases.push(db);
  let service: Child | undefined = await startService(db.target);
  const base = () => `http://127.0.0.1:${service?.port}`;
  await api(base(), 'POST', '/api/admin/projects', { id: PROJECT, name: 'Big project' });
  const username = 'bench-admin';
  await api(base(), 'POST', '/api/admin/user-admin', { username, password: PASSWORD, rootRole: 'Admin' });
  // PGlite is one process's: the service stops while the bench writes.
  await stopChild(service);
  service = undefined;
  const sql = await db.connect();
  const t0 = performance.now();
  await sql.query(
    `INSERT INTO features (name, project, type, description, created_at)
     SELECT $1 || '-' || lpad(i::text, 5, '0'), $2, 'release', 'Flag ' || i, now() - ($3 - i) * interval '1 minute'
     FROM generate_series(1, $3::int) i`,
    [PROJECT, PROJECT, FLAGS],
  );
  await sql.query(
    `INSERT INTO feature_environments (feature_name, environment, enabled)
     SELECT f.name, pe.environment_name, f.name LIKE '%5' FROM features f
     JOIN project_environments pe ON pe.project_id = f.project WHERE f.project = $1`,
    [PROJECT],
  );
  log(`${FLAGS} flags inserted in ${Math.round(performance.now() - t0)} ms`);
  await sql.close();
  service = await startService(
    args['verify-cache'] ? { ...db.target, env: { ...db.target.env, READ_CACHE_VERIFY: 'true' } } : db.target,
  );
  const url = base();

  const profile = await mkdtemp(join(tmpdir(), 'flagship-bench-ui-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    reducedMotion: 'reduce',
    args: CHROMIUM_ARGS,
  });
  const runs: Run[] = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    const errors: string[] = [];
    context.on('weberror', (e) => errors.push(String(e.error())));
    const cdp = await context.newCDPSession(page);
    // Sign in on the login page itself, so that the first navigation below is the first time the
    // browser loads the project page's chunk.
    await page.goto(`${url}/login`);
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.goto('about:blank');
    await cdp.send('Network.clearBrowserCache');

    const first = `${PROJECT}-00001`;
    for (let i = 0; i < RUNS; i++) {
      if (args.cold) await cdp.send('Network.clearBrowserCache');
      const started = performance.now();
      await page.goto(`${url}/projects/${PROJECT}`);
      const row = await page.waitForFunction(
        (name) =>
          [...document.querySelectorAll('a')].some((a) => a.textContent === name) ? performance.now() : 0,
        first,
        { polling: 'raf' },
      );
      const wallMs = performance.now() - started;
      const rowMs = (await row.jsonValue()) as number;
      await page.waitForLoadState('networkidle');
      const entries = (await page.evaluate(() => [
        ...performance.getEntriesByType('navigation').map((e) => ({ kind: 'html', e: e.toJSON() })),
        ...performance.getEntriesByType('resource').map((e) => ({ kind: 'resource', e: e.toJSON() })),
      ])) as { kind: string; e: Entry }[];
      const resources: Record<string, Timing> = {};
      let html: Timing | undefined;
      for (const { kind, e } of entries) {
        const t: Timing = {
          start: e.startTime,
          // A cached chunk has no request: its ttfb is its end.
          ttfb: e.responseStart > 0 ? e.responseStart : e.responseEnd,
          end: e.responseEnd,
          bytes: e.encodedBodySize,
        };
        if (kind === 'html') html = t;
        const name = label(e.name);
        if (name && !(name in resources)) resources[name] = t;
      }
      runs.push({ wallMs, rowMs, html, resources });
      log(`run ${i + 1}: first row after ${Math.round(wallMs)} ms (in page ${Math.round(rowMs)} ms)`);
      await page.goto('about:blank');
    }
    if (errors.length > 0) log(`page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }

  // The calls in the order of their start in the first run.
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.resources)))].filter(
    (n) => n.includes('/api/') || /^(ProjectFlags|ProjectHealth|index)\./.test(n),
  );
  const order = (n: string) => runs[0]?.resources[n]?.start ?? Number.POSITIVE_INFINITY;
  names.sort((a, b) => order(a) - order(b));
  const f = (n: number | undefined) => (n === undefined ? '-' : String(Math.round(n)));
  log('');
  log('ms from navigation start; each call as start→first byte→end (first byte − start ≈ server time)');
  const head = ['run', 'goto→row', 'row (page)', 'html', ...names];
  const rows = runs.map((r, i) => [
    String(i + 1) + (i === 0 ? ' cold' : ''),
    f(r.wallMs),
    f(r.rowMs),
    r.html ? `${f(r.html.ttfb)}` : '-',
    ...names.map((n) => {
      const t = r.resources[n];
      return t ? `${f(t.start)}→${f(t.ttfb)}→${f(t.end)}` : '-';
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  for (const line of [head, ...rows]) log(line.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  '));
  log('');
  const stat = (name: string, xs: number[]) =>
    log(
      `${name.padEnd(34)} median ${f(median(xs))}  p90 ${f(percentile(xs, 90))}  min ${f(Math.min(...xs))}  max ${f(Math.max(...xs))}`,
    );
  stat(
    'goto → first row (wall clock)',
    runs.map((r) => r.wallMs),
  );
  stat(
    'first row, in page',
    runs.map((r) => r.rowMs),
  );
  for (const n of names.filter((x) => x.includes('/api/'))) {
    const server = runs.flatMap((r) => (r.resources[n] ? [r.resources[n].ttfb - r.resources[n].start] : []));
    stat(`${n} (start→first byte)`, server);
  }
  for (const n of names.filter((x) => x.includes('/api/'))) {
    const sizes = runs.flatMap((r) => (r.resources[n] ? [r.resources[n].bytes] : []));
    log(`${n}: ${f(median(sizes))} bytes`);
  }

  await stopChild(service);
  service = undefined;
  if (args.explain) {
    const compiled = compileSearch(
      parseSearch({
        project: `IS:${PROJECT}`,
        sortBy: 'createdAt',
        sortOrder: 'asc',
        offset: '0',
        limit: '200',
      }),
      { userId: 1, metricsSince: new Date(Date.now() - 3_600_000) },
    );
    const explain = await db.connect();
    const plan = await explain.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${compiled.sql}`, [
      ...compiled.parameters,
    ]);
    await explain.close();
    log('');
    log(plan.map((p) => p['QUERY PLAN']).join('\n'));
  }
}

let code = 0;
try {
  await main();
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
