/**
 * Edge mode (issue 18, "Speed"): an edge replica (`UPSTREAM_URL`, no database) in front of an
 * upstream service holding 350 flags (~100 KB of client payload, as Unleash Edge's published
 * "350 flags / 100 kB" benchmark), measured in interleaved rounds next to a bare Fastify route in
 * the same run: GET /api/client/features with If-None-Match (304), without (200, plain and gzip),
 * and GET /api/frontend for one context. Also requests per CPU-second of the edge process and its
 * RSS after the load.
 *   npx tsx bench/edge.ts --engine postgres --rounds 3 --duration 5
 *   npm run build && BENCH_DIST=1 npx tsx bench/edge.ts
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBare } from './lib/baseline.js';
import { pin, pinSelfApart, REST_CPUS, SERVICE_CPU } from './lib/cores.js';
import { loadDataset } from './lib/dataset.js';
import { type BenchDatabase, createDatabase, scratchCleanup } from './lib/db.js';
import {
  type LoadFigures,
  type LoadOptions,
  measure,
  measureNodeHttp,
  median,
  percentile,
} from './lib/measure.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';
import {
  ADMIN_TOKEN,
  type Child,
  freePort,
  peakRssMb,
  rssMb,
  startChild,
  startNodeFlags,
  startService,
  stopAll,
  stopChild,
} from './lib/service.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '350' },
    strategies: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
    // apart: the replica and the bare process on a core of their own, the load generator and the
    // upstream on the others (docs/adr/0020); shared: the kernel shares every core among them.
    cores: { type: 'string', default: 'apart' },
  },
});
if (values.cores !== 'apart' && values.cores !== 'shared') throw new Error('--cores: apart or shared');
// Before any child starts: they inherit this process's cores, and the measured ones move after.
const apart = values.cores === 'apart' && pinSelfApart();
if (values.cores === 'apart' && !apart) console.log('cannot pin processes to cores here: cores shared');
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const flags = Number(values.flags);
const strategies = Number(values.strategies);
const connections = Number(values.connections);
const durationS = Number(values.duration);
const warmupS = Number(values.warmup);
const rounds = Number(values.rounds);
const log = (m: string) => console.log(m);

/** What unleash-client 6 announces: segments are sent separately, not inlined. */
const CLIENT_SPEC = '5.2.0';
/** One browser context as unleash-proxy-client sends it. */
const CONTEXT = '?appName=web&environment=default&sessionId=bench-session-1&userId=u14';
/** Unleash Edge's published figures (pre-v20, 350 flags / 100 kB), req/s per CPU. */
const UNLEASH_EDGE = { frontend: 6900, client: 3236 };

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function adminJson(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: ADMIN_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Starts an edge replica on the upstream: `src/main.ts` (or dist/main.js) with UPSTREAM_URL, ready at its "Edge mode:" line. */
async function startEdge(
  upstreamPort: number,
  clientToken: string,
  env: Record<string, string> = {},
): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [
      // As `npm run start:edge` runs it (BENCH_DIST=1), then flags to try (EDGE_NODE_ARGS).
      ...(process.env.BENCH_DIST === '1' ? startNodeFlags('start:edge') : []),
      ...(process.env.EDGE_NODE_ARGS ?? '').split(' ').filter(Boolean),
      ...(process.env.BENCH_DIST === '1' ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts']),
    ],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}`,
      UPSTREAM_TOKENS: clientToken,
      EDGE_STREAMING: 'true',
      ...env,
    },
    readyPattern: /^Edge mode: serving /,
    timeoutMs: 60_000,
    port,
  });
}

/** Creates an API token on the upstream through the admin API. */
async function createToken(
  base: string,
  type: 'client' | 'frontend',
  name: string,
  projects = ['*'],
): Promise<string> {
  const created = await adminJson(base, 'POST', '/api/admin/api-tokens', {
    tokenName: name,
    type,
    environment: 'development',
    projects,
  });
  return created.secret as string;
}

interface Probe {
  status: number;
  bytes: number;
  etag: string;
  encoding: string;
}

async function probe(url: string, headers: Record<string, string>): Promise<Probe> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          etag: String(res.headers.etag ?? ''),
          encoding: String(res.headers['content-encoding'] ?? 'identity'),
        }),
      );
    });
    req.end();
  });
}

interface Case {
  key: string;
  label: string;
  /** autocannon, or Node's http client (for 304s: see bench/README.md). */
  client: 'autocannon' | 'node';
  options: LoadOptions;
  want: number;
}

interface Run {
  figures: LoadFigures;
  cpuS: number;
}

async function run(db: BenchDatabase): Promise<{ rows: Row[]; notes: string[]; dataset: string }> {
  const notes: string[] = [];
  const first = await startService(db.target);
  await stopChild(first);
  log(`Loading ${flags} flags…`);
  const sql = await db.connect();
  await loadDataset(
    sql,
    { projects: 10, flags, strategiesPerEnv: strategies, segments: 10, tags: 100, events: 1000 },
    log,
  );
  // Thinned to a mix near Unleash Edge's "350 flags / 100 kB" (about 290 bytes per flag): three
  // quarters of the flags have no strategy (on/off switches: on for everyone when enabled), the
  // others one flexibleRollout (50 %) with the appName constraint, half of those also the userId one
  // and a segment, a quarter 2 strategy variants; a tenth of the flags have flag variants.
  const n = 'substring(feature_name from 12)::int';
  await sql.query(
    `DELETE FROM feature_strategy_segment WHERE feature_strategy_id IN (
       SELECT id FROM feature_strategies WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 8 <> 0);
     DELETE FROM feature_strategies WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 4 <> 0;
     UPDATE feature_strategies SET constraints = constraints - 0 WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 8 <> 0;
     UPDATE feature_strategies SET variants = '[]' WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 16 <> 0;
     UPDATE feature_environments SET variants = '[]' WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 10 <> 0;`,
  );
  const [counted] = await sql.query<{ enabled: string; strategies: string }>(
    `SELECT (SELECT count(*) FROM feature_environments WHERE environment = 'development' AND enabled
               AND feature_name LIKE 'bench-flag-%') AS enabled,
            (SELECT count(*) FROM feature_strategies WHERE environment = 'development'
               AND feature_name LIKE 'bench-flag-%') AS strategies`,
  );
  await sql.close();

  let upstream: Child | undefined;
  let edge: Child | undefined;
  let bare: Child | undefined;
  try {
    upstream = await startService(db.target);
    const upBase = `http://127.0.0.1:${upstream.port}`;
    const clientToken = await createToken(upBase, 'client', 'bench-edge-client');
    const frontendToken = await createToken(upBase, 'frontend', 'bench-edge-frontend');
    // For information: a browser app's token limited to one project (a small answer).
    const frontendP1Token = await createToken(upBase, 'frontend', 'bench-edge-frontend-p1', ['bench-p1']);
    edge = await startEdge(upstream.port, clientToken);
    log(
      `Edge replica ready: spawn → ready ${edge.spawnToReadyMs.toFixed(0)} ms (${edge.internalReadyMs} ms in process)`,
    );
    notes.push(
      `Edge replica: spawn → "Edge mode: serving development" line ${edge.spawnToReadyMs.toFixed(0)} ms (${edge.internalReadyMs} ms from its own start: token validation and first configuration fetch).`,
    );
    bare = await startBare();
    if (apart) {
      pin(edge.pid, String(SERVICE_CPU));
      pin(bare.pid, String(SERVICE_CPU));
      notes.push(
        `Cores apart (docs/adr/0020): the edge replica and the bare process on core ${SERVICE_CPU} (only one of them under load at a time), the load generator (this process) and the upstream on ${REST_CPUS}.`,
      );
    } else
      notes.push(
        'Cores shared: the kernel shares every core among the replica, the bare process, the load generator and the upstream.',
      );
    const edgeBase = `http://127.0.0.1:${edge.port}`;
    const features = `${edgeBase}/api/client/features`;
    const clientHeaders = { authorization: clientToken, 'unleash-client-spec': CLIENT_SPEC };
    const plain = await probe(features, clientHeaders);
    const gzip = await probe(features, { ...clientHeaders, 'accept-encoding': 'gzip' });
    const upstreamPlain = await probe(`${upBase}/api/client/features`, clientHeaders);
    const frontendUrl = `${edgeBase}/api/frontend${CONTEXT}`;
    const frontend = await probe(frontendUrl, { authorization: frontendToken });
    const frontendGzip = await probe(frontendUrl, {
      authorization: frontendToken,
      'accept-encoding': 'gzip',
    });
    const frontendP1 = await probe(frontendUrl, { authorization: frontendP1Token });
    const enabledFor = async (token: string) =>
      (
        (await (await fetch(frontendUrl, { headers: { authorization: token } })).json()) as {
          toggles: unknown[];
        }
      ).toggles.length;
    const frontendToggles = await enabledFor(frontendToken);
    const frontendP1Toggles = await enabledFor(frontendP1Token);
    const notModified = await probe(features, { ...clientHeaders, 'if-none-match': plain.etag });
    for (const [name, p] of Object.entries({
      plain,
      gzip,
      upstreamPlain,
      frontend,
      frontendGzip,
      frontendP1,
      notModified,
    })) {
      log(`  ${name}: ${p.status}, ${p.bytes} bytes, ${p.encoding}, ETag ${p.etag}`);
    }
    if (
      plain.status !== 200 ||
      gzip.status !== 200 ||
      frontend.status !== 200 ||
      frontendGzip.status !== 200 ||
      frontendP1.status !== 200 ||
      notModified.status !== 304
    ) {
      throw new Error('the edge replica does not answer as expected (see the probes above)');
    }
    if (plain.bytes !== upstreamPlain.bytes) {
      notes.push(
        `The edge's client payload (${plain.bytes} B) differs in size from the upstream's (${upstreamPlain.bytes} B).`,
      );
    }
    const dataset = `bench/lib/dataset.ts with ${flags} flags in 10 projects and 10 segments, thinned: 3/4 of the flags without strategies, the others ${strategies} flexibleRollout strateg${strategies === 1 ? 'y' : 'ies'} (50 %) with an appName STR_STARTS_WITH constraint, half of those also a userId IN constraint and a segment, a quarter 2 strategy variants; 1/10 of the flags with 2 flag variants (one with an override); ${counted?.enabled} of ${flags} flags enabled and ${counted?.strategies} strategies in development; client payload ${(plain.bytes / 1024).toFixed(1)} KB (${(gzip.bytes / 1024).toFixed(1)} KB gzip), \`Unleash-Client-Spec: ${CLIENT_SPEC}\``;

    const settings = { connections, durationS };
    const bareUrl = `http://127.0.0.1:${bare.port}/bare`;
    const cases: Case[] = [
      {
        key: 'bare',
        label: 'bare Fastify GET /bare',
        client: 'autocannon',
        options: { url: bareUrl, ...settings },
        want: 200,
      },
      {
        key: 'bare-node',
        label: 'bare Fastify GET /bare (Node http client)',
        client: 'node',
        options: { url: bareUrl, ...settings },
        want: 200,
      },
      {
        key: '304',
        label: 'GET /api/client/features, If-None-Match (304)',
        client: 'node',
        options: { url: features, headers: { ...clientHeaders, 'if-none-match': plain.etag }, ...settings },
        want: 304,
      },
      {
        key: '200',
        label: `GET /api/client/features (200, ${(plain.bytes / 1024).toFixed(1)} KB)`,
        client: 'autocannon',
        options: { url: features, headers: clientHeaders, ...settings },
        want: 200,
      },
      {
        key: '200-gzip',
        label: `GET /api/client/features (200, gzip, ${(gzip.bytes / 1024).toFixed(1)} KB)`,
        client: 'autocannon',
        options: { url: features, headers: { ...clientHeaders, 'accept-encoding': 'gzip' }, ...settings },
        want: 200,
      },
      {
        key: 'frontend',
        label: `GET /api/frontend, one context, all projects (${frontendToggles} enabled, ${(frontend.bytes / 1024).toFixed(1)} KB)`,
        client: 'autocannon',
        options: { url: frontendUrl, headers: { authorization: frontendToken }, ...settings },
        want: 200,
      },
      {
        key: 'frontend-gzip',
        label: `GET /api/frontend, one context, all projects, gzip accepted as browsers ask (${(frontendGzip.bytes / 1024).toFixed(1)} KB ${frontendGzip.encoding})`,
        client: 'autocannon',
        options: {
          url: frontendUrl,
          headers: { authorization: frontendToken, 'accept-encoding': 'gzip' },
          ...settings,
        },
        want: 200,
      },
      {
        key: 'frontend-p1',
        label: `GET /api/frontend, one context, token for one project (${frontendP1Toggles} enabled, ${(frontendP1.bytes / 1024).toFixed(1)} KB)`,
        client: 'autocannon',
        options: { url: frontendUrl, headers: { authorization: frontendP1Token }, ...settings },
        want: 200,
      },
      {
        key: 'bare-blob',
        label: `bare Fastify sending the frontend answer's ${frontend.bytes} bytes`,
        client: 'autocannon',
        options: { url: `http://127.0.0.1:${bare.port}/bare/blob/${frontend.bytes}`, ...settings },
        want: 200,
      },
    ];
    const go = async (c: Case, seconds: number): Promise<Run> => {
      const pid = c.key.startsWith('bare') ? bare?.pid : edge?.pid;
      const before = cpuSeconds(pid ?? -1);
      const options = { ...c.options, durationS: seconds };
      const figures = c.client === 'node' ? await measureNodeHttp(options, 0) : await measure(options, 0);
      return { figures, cpuS: cpuSeconds(pid ?? -1) - before };
    };
    log(`Warm-up: ${warmupS} s per case…`);
    for (const c of cases) await go(c, warmupS);
    const runs = new Map<string, Run[]>(cases.map((c) => [c.key, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotating order: whatever else runs on the machine falls on every case alike.
      const order = cases.map((_, i) => cases[(i + round) % cases.length] as Case);
      const line: string[] = [];
      for (const c of order) {
        const r = await go(c, durationS);
        runs.get(c.key)?.push(r);
        line.push(`${c.key} ${r.figures.rps.toFixed(0)}`);
      }
      log(`Round ${round + 1}/${rounds}: ${line.join(', ')} req/s`);
    }
    const rssAfter = rssMb(edge.pid);
    const bareRssAfter = rssMb(bare.pid);
    const peak = peakRssMb(edge.pid);
    const barePeak = peakRssMb(bare.pid);

    const agg = (key: string) => {
      const rs = runs.get(key) ?? [];
      const requests = rs.reduce((a, r) => a + r.figures.requests, 0);
      const samples = rs.flatMap((r) => r.figures.samples ?? []);
      const statuses: Record<number, number> = {};
      for (const r of rs)
        for (const [s, n] of Object.entries(r.figures.statuses ?? {}))
          statuses[Number(s)] = (statuses[Number(s)] ?? 0) + n;
      return {
        rps: rs.reduce((a, r) => a + r.figures.rps, 0) / Math.max(rs.length, 1),
        perRound: rs.map((r) => r.figures.rps),
        p50: percentile(samples, 50),
        p99: percentile(samples, 99),
        requests,
        errors: rs.reduce((a, r) => a + r.figures.errors, 0),
        statuses,
        cpuS: rs.reduce((a, r) => a + r.cpuS, 0),
      };
    };
    const bareA = agg('bare');
    const bareNodeA = agg('bare-node');
    const bareBlobA = agg('bare-blob');
    const bareRuns = runs.get('bare') ?? [];
    const blobRatios = bareBlobA.perRound.map((v, i) => v / (bareRuns[i]?.figures.rps ?? Number.NaN));
    const rows: Row[] = [];
    const perCpu: Record<string, number> = {};
    for (const c of cases.filter((x) => !x.key.startsWith('bare'))) {
      const a = agg(c.key);
      const base = c.client === 'node' ? bareNodeA : bareA;
      // Per-round ratios: each case against the bare route of the same round.
      const baseRuns = runs.get(c.client === 'node' ? 'bare-node' : 'bare') ?? [];
      const ratios = a.perRound.map((v, i) => v / (baseRuns[i]?.figures.rps ?? Number.NaN));
      // A browser's fetch always accepts gzip: the frontend API's target is on that request. The
      // plain one moves 32 KB per answer, which caps a bare route too: it gets a figure against the
      // bare route sending the same bytes (below).
      const target = c.key === '304' ? 0.8 : c.key === 'frontend-gzip' ? 0.5 : undefined;
      const frontendish = c.key.startsWith('frontend');
      const ok = a.errors === 0 && (a.statuses[c.want] ?? 0) === a.requests;
      const statusNote = ok
        ? `${a.requests} requests, all ${c.want}`
        : `${a.errors} errors, statuses ${JSON.stringify(a.statuses)} of ${a.requests}`;
      perCpu[c.key] = a.cpuS > 0 ? a.requests / a.cpuS : Number.NaN;
      rows.push(
        {
          scenario: `Edge ${c.label}`,
          figure: 'throughput',
          value: a.rps,
          baseline: base.rps,
          unit: 'req/s',
          lowerIsBetter: false,
          note: `${statusNote}; per round ${a.perRound.map((v) => v.toFixed(0)).join(' / ')}; ${c.client === 'node' ? 'Node http client for both (autocannon cannot read a 304 with Content-Length)' : 'autocannon'}`,
        },
        {
          scenario: `Edge ${c.label}`,
          figure: 'throughput / bare route (median of the rounds)',
          value: median(ratios),
          unit: '×',
          target,
          lowerIsBetter: false,
          note: `per round ${ratios.map((r) => r.toFixed(2)).join(' / ')}${frontendish ? `; the bare route sending the same ${frontend.bytes} bytes reaches ${median(blobRatios).toFixed(2)}× of /bare (per round ${blobRatios.map((r) => r.toFixed(2)).join(' / ')})` : ''}`,
        },
        { scenario: `Edge ${c.label}`, figure: 'p50 latency', value: a.p50, baseline: base.p50, unit: 'ms' },
        { scenario: `Edge ${c.label}`, figure: 'p99 latency', value: a.p99, baseline: base.p99, unit: 'ms' },
        {
          scenario: `Edge ${c.label}`,
          figure: 'CPU time per request (edge process vs bare process)',
          value: (a.cpuS / Math.max(a.requests, 1)) * 1e6,
          baseline: (bareA.cpuS / Math.max(bareA.requests, 1)) * 1e6,
          unit: 'µs',
          note: 'utime + stime of the serving process over the timed runs ÷ responses; less sensitive than req/s to the load generator sharing the cores',
        },
        {
          scenario: `Edge ${c.label}`,
          figure: 'requests per CPU-second of the edge process',
          value: perCpu[c.key] ?? Number.NaN,
          baseline: frontendish
            ? UNLEASH_EDGE.frontend
            : c.key === '200' || c.key === '200-gzip'
              ? UNLEASH_EDGE.client
              : undefined,
          unit: 'req/s',
          lowerIsBetter: false,
          note: `${a.cpuS.toFixed(1)} CPU-s for ${a.requests} requests (utime + stime, /proc/<pid>/stat)${frontendish ? '; baseline: Unleash Edge, published 6,900 req/s per CPU (frontend, pre-v20)' : c.key.startsWith('200') ? '; baseline: Unleash Edge, published 3,236 req/s per CPU (client features, pre-v20)' : ''}`,
        },
      );
    }
    const plainFrontend = runs.get('frontend') ?? [];
    const sameBytes = plainFrontend.map((r, i) => r.figures.rps / (bareBlobA.perRound[i] ?? Number.NaN));
    rows.push({
      scenario: `Edge ${cases.find((c) => c.key === 'frontend')?.label}`,
      figure: 'throughput / bare route sending the same bytes (median of the rounds)',
      value: median(sameBytes),
      unit: '×',
      lowerIsBetter: false,
      note: `per round ${sameBytes.map((r) => r.toFixed(2)).join(' / ')}: the part of the cost that is not moving the answer's bytes`,
    });
    rows.push({
      scenario: `Bare Fastify sending the frontend answer's ${frontend.bytes} bytes (pre-serialised)`,
      figure: 'throughput',
      value: bareBlobA.rps,
      baseline: bareA.rps,
      unit: 'req/s',
      lowerIsBetter: false,
      note: `for information: what moving the frontend answer's bytes costs; median per-round ratio to /bare ${median(blobRatios).toFixed(2)}×; p50 ${bareBlobA.p50.toFixed(2)} ms, p99 ${bareBlobA.p99.toFixed(2)} ms`,
    });
    rows.push({
      scenario: 'Edge process after the load',
      figure: 'RSS (VmRSS)',
      value: rssAfter,
      baseline: bareRssAfter,
      unit: 'MB',
      target: 80,
      lowerIsBetter: true,
      note: `one Node process (${process.env.BENCH_DIST === '1' ? `dist/main.js with npm run start:edge's flags ${startNodeFlags('start:edge').join(' ')}` : 'tsx loader'}${process.env.EDGE_NODE_ARGS ? `, EDGE_NODE_ARGS ${process.env.EDGE_NODE_ARGS}` : ''}${process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}); baseline: the bare Fastify process after the same runs`,
    });
    rows.push({
      scenario: 'Edge process during the load',
      figure: 'peak RSS (VmHWM)',
      value: peak,
      baseline: barePeak,
      unit: 'MB',
      lowerIsBetter: true,
      note: 'the most the process held at any time since it started; baseline: the bare Fastify process',
    });
    notes.push(
      `${rounds} rounds of ${durationS} s per case (after one ${warmupS} s warm-up per case), ${connections} connections, cases in rotating order per round; throughput is the mean of the rounds, the ratio to the bare route the median of the per-round ratios (each against the bare route of the same round), p50/p99 pooled over all responses of the rounds. The load generator (autocannon or the Node http loop) runs in the bench process on this machine, so the bare route is capped by the load generator as much as by Fastify: read the ratios, not the absolute figures.`,
      `Bare route: autocannon ${bareA.rps.toFixed(0)} req/s (per round ${bareA.perRound.map((v) => v.toFixed(0)).join(' / ')}; ${(bareA.requests / Math.max(bareA.cpuS, 0.01)).toFixed(0)} requests per CPU-second of the bare process), Node http client ${bareNodeA.rps.toFixed(0)} req/s.`,
      'Per CPU: the edge replica is one Node process (one event loop, at most about one core), so its req/s is already a one-CPU figure; "requests per CPU-second" divides the requests by the CPU time the edge process actually used, which is the fairer comparison with Unleash Edge\'s published per-CPU figures (measured on other hardware with a separate load generator: an informal comparison only).',
    );
    return { rows, notes, dataset };
  } finally {
    if (bare) await stopChild(bare);
    if (edge) await stopChild(edge);
    if (upstream) await stopChild(upstream);
  }
}

const { databases, cleanup } = scratchCleanup(log, stopAll);
let code = 0;
try {
  const db = await createDatabase(engine);
  databases.push(db);
  log(`Engine ${engine}: ${db.describe}`);
  const { rows, notes, dataset } = await run(db);
  printTable(rows);
  if (!values['no-write']) {
    writeSection(values.results, 'edge', [
      `### Edge mode (upstream on ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'})`,
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${machineFacts()}${process.env.BENCH_DIST === '1' ? ', service and replica from dist/main.js' : ', service and replica under tsx'}.`,
      `Command: \`npx tsx bench/edge.ts --engine ${engine} --flags ${flags} --strategies ${strategies} --connections ${connections} --duration ${durationS} --rounds ${rounds} --cores ${apart ? 'apart' : 'shared'}\`.`,
      `Dataset: ${dataset}.`,
      '',
      markdownTable(rows),
      '',
      ...notes.map((n) => `- ${n}`),
    ]);
    log(`Written to ${values.results}`);
  }
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
