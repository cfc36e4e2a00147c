/**
 * Flagship against Unleash 8.2 (open source) on the same machine and PostgreSQL, with the same
 * dataset loaded through each admin API, measured in interleaved rounds. See bench/README.md.
 *   npm run bench -- --compare unleash --flags 200 --seed 1
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBare } from './lib/baseline.js';
import {
  Api,
  type Dataset,
  ENVIRONMENTS,
  generateDataset,
  loadThroughAdminApi,
  PROJECT,
} from './lib/compare-data.js';
import { createPgliteDatabase, createPostgresDatabase, scratchCleanup } from './lib/db.js';
import { type LoadFigures, type LoadOptions, measure, measureNodeHttp, percentile } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import {
  ADMIN_TOKEN,
  type Child,
  ROOT,
  rssMb,
  startNodeFlags,
  startService,
  stopAll,
} from './lib/service.js';
import { ensureUnleash, startUnleash } from './lib/unleash.js';

/** What unleash-client 6 announces (segments sent separately), as in the bench's client scenario. */
const CLIENT_SPEC = '5.2.0';
const SCENARIOS = [
  'get',
  'events',
  'events-flag',
  'playground',
  'advanced',
  'client-200',
  'client-gzip',
  'client-304',
  'search',
  'search-broad',
  'export',
  'overview',
  'health',
  'frontend',
  'ui-list',
  'ui-flag',
  'put',
  'create',
] as const;
type ScenarioKey = (typeof SCENARIOS)[number];

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

/**
 * The admin API reads Unleash 8.2's own web UI makes to draw a project's flag list, in its order,
 * as recorded from the unmodified UI (test/ui/unleash-ui.test.ts serves it) in headless Chromium
 * on 2026-12-04: the session, settings, projects, the overview, the flags (its health widget's
 * search and the list's first page), filters' choices.
 */
const UI_LIST: readonly string[] = [
  '/api/admin/ui-config',
  '/api/admin/user',
  '/api/admin/projects',
  `/api/admin/projects/${PROJECT}/overview`,
  '/api/admin/projects?archived=true',
  `/api/admin/search/features?lastSeenAt=IS_BEFORE%3A${day(7)}&lifecycle=IS%3Acompleted&project=IS%3A${PROJECT}`,
  `/api/admin/projects/${PROJECT}/status`,
  `/api/admin/projects/${PROJECT}/flag-creators`,
  '/api/admin/feature-types',
  '/api/admin/tags',
  `/api/admin/search/features?favoritesFirst=true&limit=25&offset=0&project=IS%3A${PROJECT}&sortBy=createdAt&sortOrder=desc`,
  `/api/admin/search/features?project=IS%3A${PROJECT}`,
];

/** The same for a flag's page (recorded the same way). */
const uiFlag = (flag: string): readonly string[] => [
  '/api/admin/ui-config',
  '/api/admin/user',
  '/api/admin/projects',
  `/api/admin/projects/${PROJECT}/overview`,
  `/api/admin/projects/${PROJECT}/features/${flag}?variantEnvironments=true`,
  `/api/admin/client-metrics/features/${flag}`,
  `/api/admin/environments/project/${PROJECT}`,
  '/api/admin/tag-types',
  `/api/admin/features/${flag}/tags`,
  `/api/admin/projects/${PROJECT}/features/${flag}/parent-variants`,
  `/api/admin/projects/${PROJECT}/dependencies`,
];

interface Side {
  key: 'ours' | 'pglite' | 'unleash' | 'ceiling';
  label: string;
  child: Child;
  admin: Api;
  client?: Api;
  /** A frontend token of all projects in development (the frontend API case). */
  frontend?: string;
  etag?: string;
  startMs: number;
  loadMs: number;
  loadRequests: number;
  rssBefore?: number;
  rssAfter?: number;
}

interface Case {
  key: ScenarioKey;
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  /** Request headers besides the admin token (client cases replace the token). */
  headers?: (side: Side) => Record<string, string>;
  /** A body per request (counters for unique names / changing descriptions). */
  body?: (side: Side) => () => string;
  /**
   * A page's requests, sent in turn by each connection (`path` is the first): what a browser asks
   * to draw one page. Every one must be answered with an expected status on a side, else the
   * scenario is skipped for it; req/s counts requests (page loads are that ÷ the list's length).
   */
  paths?: readonly string[];
  /** Statuses counted as answered (Flagship creates with 200, Unleash with 201). */
  expect: readonly number[];
  /**
   * Heavy responses: Node's HTTP client, which lets the requests in flight at the end of a round
   * finish and counts them (autocannon drops them, and a multi-second request is then never
   * counted), with fewer connections so a round stays a few seconds long.
   */
  heavy?: { connections: number };
}

interface SideResult {
  side: Side;
  rounds: LoadFigures[];
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  statuses: Record<number, number>;
  bytes: number;
}

interface CaseResult {
  c: Case;
  results: Map<Side['key'], SideResult>;
  skipped: string[];
  client: 'autocannon' | 'node';
  notes: string[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
const geomean = (xs: number[]) => Math.exp(mean(xs.map(Math.log)));
/** req/s: whole numbers from 100 on, decimals below (the advanced playground serves a few per second). */
const f0 = (n: number) =>
  !Number.isFinite(n) ? '—' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2);
const ms = (n: number) =>
  Number.isFinite(n) ? `${n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)} ms` : '—';
const kb = (n: number) => (n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

function table(head: string[], rows: string[][], markdown: boolean): string[] {
  if (markdown) {
    const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
    return [line(head), line(head.map(() => '---')), ...rows.map(line)];
  }
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  '));
}

export async function compare(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      compare: { type: 'string' },
      seed: { type: 'string', default: '1' },
      flags: { type: 'string', default: '200' },
      segments: { type: 'string', default: '10' },
      tags: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '4' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '8' },
      contexts: { type: 'string', default: '20' },
      scenarios: { type: 'string', default: SCENARIOS.join(',') },
      pglite: { type: 'boolean', default: false },
      results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
      'no-write': { type: 'boolean', default: false },
      'no-ceiling': { type: 'boolean', default: false },
    },
  });
  if (values.compare !== 'unleash') throw new Error('--compare knows one server: unleash');
  const int = (name: keyof typeof values, min = 0): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  const seed = int('seed');
  const flagCount = int('flags', 1);
  const rounds = int('rounds', 1);
  const durationS = int('duration', 1);
  const warmupS = int('warmup');
  const connections = int('connections', 1);
  const contexts = int('contexts', 1);
  const selected = String(values.scenarios)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as ScenarioKey[];
  for (const s of selected)
    if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS}`);
  const log = (m: string) => console.log(m);

  const { databases, cleanup, release } = scratchCleanup(log, stopAll);
  const sides: Side[] = [];

  try {
    const unleashVersion = await ensureUnleash(log);
    const ourCommit = (() => {
      try {
        const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
        const dirty = git('status', '--porcelain', '--', 'src', 'migrations')
          .split('\n')
          .filter(Boolean).length;
        return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ` + ${dirty} uncommitted files in src/ and migrations/` : ''}`;
      } catch {
        return 'unknown';
      }
    })();

    const oursDb = await createPostgresDatabase('flagship_bench');
    databases.push(oursDb);
    const unleashDb = await createPostgresDatabase('unleash_bench');
    databases.push(unleashDb);
    const pgliteDb = values.pglite ? await createPgliteDatabase() : undefined;
    if (pgliteDb) databases.push(pgliteDb);
    log(`Scratch databases: ${databases.map((d) => d.describe).join('; ')}`);

    const makeSide = (key: Side['key'], label: string, child: Child): Side => ({
      key,
      label,
      child,
      admin: new Api(`http://127.0.0.1:${child.port}`, ADMIN_TOKEN),
      startMs: child.spawnToReadyMs,
      loadMs: 0,
      loadRequests: 0,
    });
    log('Starting Flagship (PostgreSQL)…');
    sides.push(makeSide('ours', 'Flagship', await startService(oursDb.target)));
    log('Starting Unleash (migrations on the empty database take a few seconds)…');
    const unleashUrl = unleashDb.target.env.DATABASE_URL;
    if (!unleashUrl) throw new Error('no DATABASE_URL for Unleash');
    sides.push(makeSide('unleash', `Unleash ${unleashVersion}`, await startUnleash(unleashUrl)));
    if (pgliteDb) {
      log('Starting Flagship (PGlite)…');
      sides.push(makeSide('pglite', 'Flagship (PGlite)', await startService(pgliteDb.target)));
    }
    for (const s of sides)
      log(`  ${s.label}: port ${s.child.port}, ready ${Math.round(s.startMs)} ms after spawn`);

    const data = generateDataset(seed, flagCount, int('segments'), int('tags'));
    const strategies = data.flags.reduce(
      (a, f) => a + f.environments.reduce((b, e) => b + e.strategies.length, 0),
      0,
    );
    log(
      `Dataset (seed ${seed}): ${data.flags.length} flags, ${strategies} strategies, ${data.segments.length} segments, ${data.tags.length} tags`,
    );
    for (const s of sides) {
      const t = performance.now();
      await loadThroughAdminApi(s.admin, data);
      s.loadMs = performance.now() - t;
      s.loadRequests = s.admin.requests;
      const token = await s.admin.ok('POST', '/api/admin/api-tokens', {
        type: 'client',
        tokenName: 'bench-client',
        environment: 'development',
        projects: ['*'],
      });
      s.client = new Api(s.admin.base, token.json<{ secret: string }>().secret);
      const frontend = await s.admin.ok('POST', '/api/admin/api-tokens', {
        type: 'frontend',
        tokenName: 'bench-frontend',
        environment: 'development',
        projects: ['*'],
      });
      s.frontend = frontend.json<{ secret: string }>().secret;
      log(`  ${s.label}: loaded in ${(s.loadMs / 1000).toFixed(1)} s (${s.loadRequests} admin requests)`);
    }

    const checks = await agreement(sides, data, log);
    if (!values['no-ceiling']) {
      // Started after the dataset and the agreement: it answers neither.
      const bareDb = await createPostgresDatabase('bare_bench');
      databases.push(bareDb);
      const url = bareDb.target.env.DATABASE_URL ?? '';
      log('Starting the bare Fastify ceiling…');
      const bare = makeSide(
        'ceiling',
        'Bare Fastify (ceiling)',
        await startBare(true, { BARE_DATABASE_URL: url }),
      );
      sides.push(bare);
    }

    // A flag with strategies in both environments (all have), picked from the middle.
    const target = data.flags[Math.floor(data.flags.length / 2)] ?? data.flags[0];
    if (!target) throw new Error('no flag');
    const userIds = Array.from({ length: contexts }, (_, i) => `u${i}`).join(',');
    const json = { 'content-type': 'application/json' };
    const clientHeaders = (s: Side) => ({
      authorization: s.client?.token ?? '',
      'unleash-client-spec': CLIENT_SPEC,
    });
    const counter = () => {
      const n = new Map<string, number>();
      return (key: string) => {
        const next = (n.get(key) ?? 0) + 1;
        n.set(key, next);
        return next;
      };
    };
    const putCount = counter();
    const createCount = counter();
    const runId = Date.now().toString(36);
    const cases: Case[] = [
      {
        key: 'get',
        name: 'GET one flag',
        method: 'GET',
        path: `/api/admin/projects/${PROJECT}/features/${target.name}`,
        expect: [200],
      },
      {
        key: 'events',
        name: 'GET /api/admin/events',
        method: 'GET',
        path: '/api/admin/events',
        expect: [200],
      },
      {
        key: 'events-flag',
        name: 'GET /api/admin/events/:flag',
        method: 'GET',
        path: `/api/admin/events/${target.name}`,
        expect: [200],
      },
      {
        key: 'playground',
        name: 'POST playground (all flags, 1 context)',
        method: 'POST',
        path: '/api/admin/playground',
        headers: () => json,
        body: () => {
          const b = JSON.stringify({
            environment: 'development',
            projects: '*',
            context: { appName: 'web', userId: 'u7', sessionId: 's3' },
          });
          return () => b;
        },
        expect: [200],
      },
      {
        key: 'advanced',
        name: `POST playground/advanced (2 envs × ${contexts} contexts)`,
        method: 'POST',
        path: '/api/admin/playground/advanced',
        headers: () => json,
        body: () => {
          const b = JSON.stringify({
            environments: [...ENVIRONMENTS],
            projects: '*',
            context: { appName: 'web', userId: userIds },
          });
          return () => b;
        },
        expect: [200],
        heavy: { connections: Math.min(2, connections) },
      },
      {
        key: 'client-200',
        name: 'GET /api/client/features (200)',
        method: 'GET',
        path: '/api/client/features',
        headers: clientHeaders,
        expect: [200],
      },
      {
        // unleash-client (Node) fetches through make-fetch-happen (minipass-fetch), which sends
        // `Accept-Encoding: gzip,deflate` unless told otherwise.
        key: 'client-gzip',
        name: 'GET /api/client/features (200, gzip as unleash-client asks)',
        method: 'GET',
        path: '/api/client/features',
        headers: (s) => ({ ...clientHeaders(s), 'accept-encoding': 'gzip,deflate' }),
        expect: [200],
      },
      {
        key: 'client-304',
        name: 'GET /api/client/features (304, If-None-Match)',
        method: 'GET',
        path: '/api/client/features',
        // identity: the check (fetch) and the load (autocannon) ask for the same representation.
        headers: (s) => ({
          ...clientHeaders(s),
          'if-none-match': s.etag ?? '',
          'accept-encoding': 'identity',
        }),
        expect: [304],
      },
      {
        // What the flag list of the web UI asks: a text query with filters, one page.
        key: 'search',
        name: 'GET search (query, type and state filters, limit 50)',
        method: 'GET',
        path: '/api/admin/search/features?query=flag&type=IS:release&state=IS:active&limit=50',
        expect: [200],
      },
      {
        key: 'search-broad',
        name: 'GET search (every flag matches, sorted by name, a deep page)',
        method: 'GET',
        path: '/api/admin/search/features?query=bench&sortBy=name&sortOrder=asc&limit=50&offset=150',
        expect: [200],
      },
      {
        key: 'export',
        name: 'POST features-batch/export (every flag, one environment)',
        method: 'POST',
        path: '/api/admin/features-batch/export',
        headers: () => json,
        body: () => {
          const b = JSON.stringify({ environment: 'development', features: [] });
          return () => b;
        },
        expect: [200],
        heavy: { connections: Math.min(2, connections) },
      },
      {
        key: 'overview',
        name: 'GET project overview',
        method: 'GET',
        path: `/api/admin/projects/${PROJECT}/overview`,
        expect: [200],
      },
      {
        key: 'health',
        name: 'GET project health report',
        method: 'GET',
        path: `/api/admin/projects/${PROJECT}/health-report`,
        expect: [200],
      },
      {
        key: 'frontend',
        name: 'GET /api/frontend (frontend token, one context)',
        method: 'GET',
        path: '/api/frontend?appName=web&userId=u7&sessionId=s3',
        headers: (s) => ({ authorization: s.frontend ?? '' }),
        expect: [200],
      },
      {
        key: 'ui-list',
        name: `Unleash's web UI drawing a project's flag list (${UI_LIST.length} GETs)`,
        method: 'GET',
        path: UI_LIST[0] as string,
        paths: UI_LIST,
        expect: [200],
      },
      {
        key: 'ui-flag',
        name: `Unleash's web UI drawing a flag's page (${uiFlag(target.name).length} GETs)`,
        method: 'GET',
        path: uiFlag(target.name)[0] as string,
        paths: uiFlag(target.name),
        expect: [200],
      },
      {
        key: 'put',
        name: 'PUT flag (changing description)',
        method: 'PUT',
        path: `/api/admin/projects/${PROJECT}/features/${target.name}`,
        headers: () => json,
        body: (s) => () =>
          JSON.stringify({
            description: `Updated ${putCount(s.key)}`,
            type: target.type,
            impressionData: target.impressionData,
          }),
        expect: [200],
      },
      {
        key: 'create',
        name: 'POST create flag (unique names)',
        method: 'POST',
        path: `/api/admin/projects/${PROJECT}/features`,
        headers: () => json,
        body: (s) => () =>
          JSON.stringify({
            name: `cmp-${runId}-${s.key}-${createCount(s.key)}`,
            type: 'release',
            description: 'Created under load',
          }),
        expect: [200, 201],
      },
    ];

    for (const s of sides) s.rssBefore = rssMb(s.child.pid);
    const results: CaseResult[] = [];
    for (const c of cases.filter((x) => selected.includes(x.key))) {
      results.push(await runCase(c, sides, { rounds, durationS, warmupS, connections }, log));
    }
    for (const s of sides) s.rssAfter = rssMb(s.child.pid);

    const pglite = sides.find((s) => s.key === 'pglite');
    const ceiling = sides.find((s) => s.key === 'ceiling');
    const head = [
      'Scenario',
      'Flagship req/s',
      'Unleash req/s',
      'Flagship / Unleash',
      'Flagship p99',
      'Unleash p99',
      ...(pglite ? ['Flagship (PGlite) req/s', 'PGlite / Unleash', 'PGlite p99'] : []),
      ...(ceiling ? ['Ceiling req/s', 'Ceiling / Unleash', 'Flagship / ceiling'] : []),
    ];
    const ratios: number[] = [];
    const pgliteRatios: number[] = [];
    const rows = results.map((r) => {
      const o = r.results.get('ours');
      const u = r.results.get('unleash');
      const p = r.results.get('pglite');
      const b = r.results.get('ceiling');
      const ratio = o && u ? o.rps / u.rps : Number.NaN;
      const pRatio = p && u ? p.rps / u.rps : Number.NaN;
      if (Number.isFinite(ratio)) ratios.push(ratio);
      if (Number.isFinite(pRatio)) pgliteRatios.push(pRatio);
      return [
        r.c.name,
        o ? f0(o.rps) : 'skipped',
        u ? f0(u.rps) : 'skipped',
        Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '—',
        o ? ms(o.p99) : '—',
        u ? ms(u.p99) : '—',
        ...(pglite
          ? [
              p ? f0(p.rps) : 'skipped',
              Number.isFinite(pRatio) ? `${pRatio.toFixed(2)}×` : '—',
              p ? ms(p.p99) : '—',
            ]
          : []),
        ...(ceiling
          ? [
              b ? f0(b.rps) : 'skipped',
              b && u ? `${(b.rps / u.rps).toFixed(2)}×` : '—',
              b && o ? `${(o.rps / b.rps).toFixed(2)}×` : '—',
            ]
          : []),
      ];
    });
    rows.push([
      `**Geometric mean of the ratios** (${ratios.length} scenarios)`,
      '',
      '',
      ratios.length ? `**${geomean(ratios).toFixed(2)}×**` : '—',
      '',
      '',
      ...(pglite ? ['', pgliteRatios.length ? `**${geomean(pgliteRatios).toFixed(2)}×**` : '—', ''] : []),
      ...(ceiling ? ['', '', ''] : []),
    ]);
    const rssHead = [
      'Process',
      'Start (spawn → ready, empty database)',
      'Load through the admin API',
      'RSS before the runs',
      'RSS after the runs',
    ];
    const rssRows = sides.map((s) => [
      s.label,
      `${Math.round(s.startMs)} ms`,
      `${(s.loadMs / 1000).toFixed(1)} s (${s.loadRequests} requests)`,
      `${(s.rssBefore ?? Number.NaN).toFixed(0)} MB`,
      `${(s.rssAfter ?? Number.NaN).toFixed(0)} MB`,
    ]);
    const details = results.flatMap((r) => {
      const parts = [...r.results.values()].map(
        (x) =>
          `${x.side.label} ${x.rounds.map((f) => f0(f.rps)).join(' / ')} req/s (p50 ${ms(x.p50)}, ${x.requests} responses${x.unexpected ? `, **${x.unexpected} not ${r.c.expect.join('/')}**: ${JSON.stringify(x.statuses)}` : ''}, body ${kb(x.bytes)})`,
      );
      return [`${r.c.name}: ${[...parts, ...r.skipped, ...r.notes].join('; ')}.`];
    });

    console.log('');
    for (const l of table(head, rows, false)) console.log(l);
    console.log('');
    for (const l of table(rssHead, rssRows, false)) console.log(l);
    console.log('');
    for (const d of details) console.log(`- ${d}`);
    for (const c of checks) console.log(`- ${c}`);

    const notes = [
      `Load: autocannon in the runner process, ${connections} connections; per scenario ${rounds} interleaved rounds of ${durationS} s (${sides.map((s) => s.label).join(', ')}, then again), each server warmed up for ${warmupS} s before its first round; req/s is the mean of the rounds, p50/p99 are pooled over all responses of the rounds. The servers, PostgreSQL and the load generator share the machine's cores; all servers run for the whole time (the idle one's background work included), and before every run the runner waits until each server process is idle (≤ 10 % of a core over 2 × 300 ms), so work left from the previous run does not land in the next.`,
      `Flagship: commit ${ourCommit}, ${process.env.BENCH_DIST === '1' ? `\`node ${startNodeFlags().join(' ')} dist/main.js\` (as \`npm start\`)` : '`node --import tsx src/main.ts` (as `npm run dev`)'}, LOG_LEVEL=warn, database pool 10 (default). Unleash: unleash-server ${unleashVersion} from the npm registry (\`bench/.unleash\`), \`node dist/server.js\`, NODE_ENV=production, LOG_LEVEL=info, database pool 4 (its default); its rate limits (20,000 requests/min per token kind and for the SDK API) and flag limit (5,000) lifted, telemetry and version check off. Both on ${process.version} (Unleash 8.2 declares node ≥ 22; it ran on ${process.version} here).`,
      `Dataset (seed ${seed}, loaded through each admin API): ${data.flags.length} flags in the \`${PROJECT}\` project (Unleash open source has no project creation: \`POST /api/admin/projects\` answers 404), ${strategies} flexibleRollout strategies over development and production (1–2 constraints each on userId/appName/sessionId/currentTime, a segment on ~40 %, two strategy variants on ~50 %), ${data.segments.length} segments, ${data.tags.length} tags (1–2 per flag); 75 % enabled in development, 50 % in production. Flag (environment) variants are left out: Unleash 8.2 refuses them (403, deprecated in favour of strategy variants).`,
      `Scenario flag: \`${target.name}\` (${target.environments.map((e) => `${e.name} ${e.strategies.length} strategies`).join(', ')}). Client API with a client token (development, all projects) created through \`POST /api/admin/api-tokens\`, \`Unleash-Client-Spec: ${CLIENT_SPEC}\`; the playground context: appName web, userId u7, sessionId s3; the advanced playground: appName web, userId u0…u${contexts - 1} (${contexts} contexts × 2 environments × ${data.flags.length} flags).`,
      ...(ceiling
        ? [
            "Ceiling: a bare Fastify 5 process (`bench/lib/bare-server.mjs`, plain node) measured in the same rounds with the same client, connections and request bodies, answering each scenario with a body of the size of Flagship's answer (gzip: the same bytes on the wire), a 304 without a body, and for the PUT / create one prepared statement on its own scratch database of the same PostgreSQL that changes a row and inserts its event (durable commit, pool of 10). It computes nothing: `Ceiling / Unleash` is the highest ratio any server answering these requests could reach on this machine, `Flagship / ceiling` how close Flagship is to it.",
          ]
        : []),
      ...details,
      ...checks,
    ];
    const dataset = `${data.flags.length} flags, ${strategies} strategies, ${data.segments.length} segments, ${data.tags.length} tags (seed ${seed})`;
    if (!values['no-write']) {
      // A run with --pglite has its own section, so both can stand side by side.
      const section = pglite ? 'compare-unleash-pglite' : 'compare-unleash';
      writeSection(String(values.results), section, [
        `### Flagship vs Unleash ${unleashVersion}, PostgreSQL${pglite ? ' (and Flagship on PGlite)' : ''}`,
        '',
        `Run ${new Date().toISOString().replace('T', ' ').slice(0, 16)} on ${machineFacts()}.`,
        `Command: \`npm run bench -- ${argv.join(' ')}\`. Dataset: ${dataset}.`,
        '',
        ...table(head, rows, true),
        '',
        ...table(rssHead, rssRows, true),
        '',
        ...notes.map((n) => `- ${n}`),
      ]);
      console.log(`\nWritten to ${values.results} (section ${section})`);
    }
    return 0;
  } catch (error) {
    // What the servers printed helps with a 500 or a failed start.
    for (const s of sides)
      console.error(`--- ${s.label} output (last 3,000 characters) ---\n${s.child.output().slice(-3000)}`);
    throw error;
  } finally {
    await cleanup();
    release();
  }
}

/**
 * The same questions to every server before any timing: the playground answer (enabled, variant)
 * per flag for one context, and the client API payload (flags, enabled, strategies).
 */
async function agreement(sides: Side[], data: Dataset, log: (m: string) => void): Promise<string[]> {
  const notes: string[] = [];
  const body = {
    environment: 'development',
    projects: '*',
    context: { appName: 'web', userId: 'u7', sessionId: 's3' },
  };
  type Play = { features: { name: string; isEnabled: boolean; variant?: { name: string } }[] };
  const answers = await Promise.all(
    sides.map(async (s) => {
      const res = await s.admin.ok('POST', '/api/admin/playground', body);
      return new Map(
        res.json<Play>().features.map((f) => [f.name, `${f.isEnabled}/${f.variant?.name ?? '-'}`] as const),
      );
    }),
  );
  const [first, ...rest] = answers;
  if (first) {
    const names = data.flags.map((f) => f.name);
    for (const [i, other] of rest.entries()) {
      const differ = names.filter((n) => first.get(n) !== other.get(n));
      const enabled = names.filter((n) => first.get(n)?.startsWith('true')).length;
      const label = sides[i + 1]?.label;
      const text = `Agreement (playground, development, appName web / userId u7 / sessionId s3): ${sides[0]?.label} and ${label} give the same enabled/variant answer for ${names.length - differ.length} of ${names.length} flags (${enabled} enabled)${
        differ.length
          ? `; different: ${differ
              .slice(0, 5)
              .map((n) => `${n} ${first.get(n)} vs ${other.get(n)}`)
              .join(', ')}`
          : ''
      }`;
      notes.push(text);
      log(`  ${text}`);
    }
  }
  type Client = {
    features: { name: string; enabled: boolean; strategies: unknown[] }[];
    segments?: unknown[];
  };
  for (const s of sides) {
    const res = await s.client?.call('GET', '/api/client/features', undefined, {
      'unleash-client-spec': CLIENT_SPEC,
    });
    if (res?.status !== 200) throw new Error(`${s.label}: client features answered ${res?.status}`);
    const payload = res.json<Client>();
    const enabled = payload.features.filter((f) => f.enabled).length;
    const strategies = payload.features.reduce((a, f) => a + f.strategies.length, 0);
    const text = `${s.label} client API (development): ${payload.features.length} flags, ${enabled} enabled, ${strategies} strategies, ${payload.segments?.length ?? 'no'} segments listed separately, ${kb(Buffer.byteLength(res.body))}, ETag ${res.headers.get('etag')}`;
    notes.push(text);
    log(`  ${text}`);
  }
  return notes;
}

async function runCase(
  c: Case,
  sides: Side[],
  o: { rounds: number; durationS: number; warmupS: number; connections: number },
  log: (m: string) => void,
): Promise<CaseResult> {
  log(`Scenario: ${c.name}`);
  const result: CaseResult = { c, results: new Map(), skipped: [], client: 'autocannon', notes: [] };
  const options = new Map<Side['key'], LoadOptions>();
  const bytes = new Map<Side['key'], number>();
  /** Flagship's answer (else the first one measured): what the ceiling answers with. */
  let answer: { bytes: number; encoded: number } | undefined;
  /** Flagship's answer size per path of a page (`c.paths`), which the ceiling answers with. */
  let pageBytes: number[] | undefined;
  for (const s of sides) {
    const path = s.key === 'ceiling' ? ceilingPath(c, answer) : c.path;
    if (c.key === 'client-304') {
      // The validator of the representation the load asks for: autocannon sends no Accept-Encoding,
      // fetch would ask for gzip, whose ETag differs (each representation has its own, RFC 9110).
      const full = await s.client?.call('GET', c.path, undefined, {
        'unleash-client-spec': CLIENT_SPEC,
        'accept-encoding': 'identity',
      });
      s.etag = full?.headers.get('etag') ?? undefined;
    }
    const headers = { authorization: ADMIN_TOKEN, ...(c.headers?.(s) ?? {}) };
    const body = c.body?.(s);
    const sent = await send(s.admin.base + path, c.method, headers, body?.());
    if (!c.expect.includes(sent.status)) {
      const why =
        sent.status === 404 && s.key === 'unleash'
          ? `not available on Unleash (404: ${sent.body.slice(0, 120)})`
          : `${s.label} answered ${sent.status} (expected ${c.expect.join(' or ')}): ${sent.body.slice(0, 160)}`;
      result.skipped.push(`skipped for ${s.label}: ${why}`);
      log(`  skipped for ${s.label}: ${why}`);
      continue;
    }
    let nextPath: (() => string) | undefined;
    if (c.paths) {
      const page = s.key === 'ceiling' ? (pageBytes ?? []).map((b) => `/bare/blob/${b}`) : [...c.paths];
      const sizes: number[] = [];
      let refused: string | undefined;
      for (const each of page) {
        const got = await send(s.admin.base + each, c.method, headers, undefined);
        if (!c.expect.includes(got.status))
          refused ??= `${got.status} for ${each}: ${got.body.slice(0, 120)}`;
        sizes.push(Buffer.byteLength(got.body));
      }
      if (refused) {
        result.skipped.push(`skipped for ${s.label}: answered ${refused}`);
        log(`  skipped for ${s.label}: answered ${refused}`);
        continue;
      }
      pageBytes ??= sizes;
      let next = 0;
      nextPath = () => page[next++ % page.length] as string;
      bytes.set(s.key, Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length));
    } else bytes.set(s.key, Buffer.byteLength(sent.body));
    answer ??= { bytes: Buffer.byteLength(sent.body), encoded: sent.encoded };
    options.set(s.key, {
      url: s.admin.base + path,
      method: c.method,
      headers,
      body,
      ...(nextPath && { path: nextPath }),
      connections: o.connections,
      durationS: o.durationS,
    });
  }
  // autocannon waits for a body after a 304 that announces a Content-Length: probe first, and use
  // Node's HTTP client for every server if any side stalls (one client for all, so ratios hold).
  let run = measure;
  if (c.heavy) {
    run = measureNodeHttp;
    result.client = 'node';
    for (const opt of options.values()) opt.connections = c.heavy.connections;
    result.notes.push(
      `${c.heavy.connections} connections and Node's HTTP client (requests in flight at the end of a round finish and count; a round lasts until then)`,
    );
  }
  if (c.key === 'client-304') {
    for (const [key, opt] of options) {
      const p = await measure({ ...opt, durationS: 1 }, 0);
      if (p.requests === 0) {
        run = measureNodeHttp;
        result.client = 'node';
        result.notes.push(`measured with Node's HTTP client (autocannon got no 304 from ${key} in 1 s)`);
      }
    }
    if (result.client === 'autocannon') result.notes.push('autocannon completes both 304s');
  }
  const rounds = new Map<Side['key'], LoadFigures[]>();
  for (let r = 0; r < o.rounds; r++) {
    for (const s of sides) {
      const opt = options.get(s.key);
      if (!opt) continue;
      const waited = await waitIdle(sides.map((x) => x.child.pid));
      if (waited > 1000) log(`  (waited ${(waited / 1000).toFixed(1)} s for the servers to go idle)`);
      const f = await run(opt, r === 0 ? o.warmupS : 0);
      rounds.set(s.key, [...(rounds.get(s.key) ?? []), f]);
      log(`  round ${r + 1} ${s.label}: ${f0(f.rps)} req/s, p99 ${ms(f.p99)}`);
    }
  }
  for (const s of sides) {
    const rs = rounds.get(s.key);
    if (!rs) continue;
    const samples = rs.flatMap((f) => f.samples ?? []);
    const statuses: Record<number, number> = {};
    for (const f of rs)
      for (const [k, v] of Object.entries(f.statuses ?? {}))
        statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
    const requests = rs.reduce((a, f) => a + f.requests, 0);
    const errors = rs.reduce((a, f) => a + f.errors, 0);
    // A server error is a defect to find: what the process logged about it goes into the notes.
    if (Object.keys(statuses).some((k) => Number(k) >= 500)) {
      const logged = s.child
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)|error/i.test(line))
        .slice(-3)
        .map((line) => line.slice(0, 400));
      result.notes.push(
        `${s.label} answered ${JSON.stringify(statuses)}; its last error lines: ${logged.join(' | ') || '(none)'}`,
      );
      log(`  ${s.label} server errors; logged: ${logged.join('\n    ') || '(none)'}`);
    }
    result.results.set(s.key, {
      side: s,
      rounds: rs,
      rps: mean(rs.map((f) => f.rps)),
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      requests,
      unexpected: requests - c.expect.reduce((a, k) => a + (statuses[k] ?? 0), 0) + errors,
      statuses,
      bytes: bytes.get(s.key) ?? 0,
    });
  }
  return result;
}

/** utime + stime of a process in clock ticks (1/100 s), from /proc/<pid>/stat. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until every process used at most 10 % of a core over two consecutive 300 ms windows (work
 * left over from the previous run, e.g. requests still being answered after the load generator
 * hung up, would otherwise slow the next run), at most 30 s. Returns the milliseconds waited.
 */
async function waitIdle(pids: number[], timeoutMs = 30_000): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let last = pids.map(cpuTicks);
  while (quiet < 2 && performance.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 300));
    const now = pids.map(cpuTicks);
    quiet = now.every((t, i) => t - (last[i] ?? 0) <= 3) ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - started;
}

/** One request as the load run sends it (the probe before timing); network errors as status 0. */
async function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; body: string; encoded: number }> {
  try {
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    // fetch decodes gzip: the bytes on the wire are in Content-Length (pre-compressed answers).
    // A streamed answer has none: then its decoded length.
    const length = res.headers.get('content-length');
    return {
      status: res.status,
      body: text,
      encoded: length === null ? Buffer.byteLength(text) : Number(length),
    };
  } catch (e) {
    return { status: 0, body: String(e), encoded: 0 };
  }
}

/**
 * The bare route that answers like Flagship's answer to this scenario (bare-server.mjs): the same
 * number of bytes (gzip: the same number on the wire), a bodiless 304, and for the writes one
 * durable statement that changes a row and records its event. No server that answers these
 * requests over HTTP on this machine can be faster: the ceiling of the ratio to Unleash.
 */
function ceilingPath(c: Case, answer: { bytes: number; encoded: number } | undefined): string {
  const bytes = answer?.bytes ?? 0;
  switch (c.key) {
    case 'client-304':
      return '/bare/304';
    case 'client-gzip':
      return `/bare/gzip/${answer?.encoded ?? 0}`;
    case 'put':
      return `/bare/update/${bytes}`;
    case 'create':
      return `/bare/create/${bytes}`;
    default:
      return `/bare/blob/${bytes}`;
  }
}
