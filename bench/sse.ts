/**
 * SSE streaming at scale (issue 18, "Speed"): `--streams` (1,000) concurrent
 * GET /api/client/streaming connections with a client token on one service instance (PostgreSQL by
 * default), its RSS before and after opening them (memory per stream), then `--changes` admin
 * changes (a flag toggled in development), each timed from the admin request to the arrival of its
 * `unleash-updated` event on every stream: p50/p99/max and how many within 1 s (target: all).
 * Then the same against an edge replica (UPSTREAM_URL) of that service, unless --no-edge.
 *   npx tsx bench/sse.ts --engine postgres --streams 1000 --changes 5
 */
import { readFileSync } from 'node:fs';
import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDataset } from './lib/dataset.js';
import { type BenchDatabase, createDatabase, scratchCleanup } from './lib/db.js';
import { median, percentile } from './lib/measure.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';
import {
  ADMIN_TOKEN,
  type Child,
  freePort,
  rssMb,
  startChild,
  startService,
  stopAll,
  stopChild,
} from './lib/service.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '350' },
    streams: { type: 'string', default: '1000' },
    changes: { type: 'string', default: '5' },
    /** How long to wait for every stream to see a change before counting the missing ones. */
    'change-timeout': { type: 'string', default: '10' },
    'no-edge': { type: 'boolean', default: false },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const flags = Number(values.flags);
const streamCount = Number(values.streams);
const changes = Number(values.changes);
const changeTimeoutMs = Number(values['change-timeout']) * 1000;
const log = (m: string) => console.log(m);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_STREAMS = String(Math.max(2000, streamCount + 100));

async function admin(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: ADMIN_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** An edge replica of the upstream, ready at its "Edge mode:" line (as bench/edge.ts starts it). */
async function startEdge(upstreamPort: number, clientToken: string): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      ...(process.env.BENCH_DIST === '1' ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts']),
    ],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}`,
      UPSTREAM_TOKENS: clientToken,
      EDGE_STREAMING: 'true',
      STREAMING_MAX_CONNECTIONS: MAX_STREAMS,
    },
    readyPattern: /^Edge mode: serving /,
    timeoutMs: 60_000,
    port,
  });
}

/** RSS in MB: the median of three readings 300 ms apart (a single one catches GC in the middle). */
async function steadyRss(pid: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 3; i++) {
    if (i > 0) await sleep(300);
    xs.push(rssMb(pid));
  }
  return median(xs);
}

/** CPU seconds (user + system) of a process so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One SSE client: what it got and when (performance.now()). */
interface Stream {
  req: ClientRequest;
  status: number;
  connectedAt: number | undefined;
  /** Arrival of each `unleash-updated` data line, with the data (to match it to a change). */
  updates: { at: number; data: string }[];
  bytes: number;
  ended: boolean;
  error: string | undefined;
}

/** Opens one stream; `event:` lines are parsed, each `data:` line is kept with the event before it. */
function openStream(url: string, token: string, agent: Agent): Stream {
  const req = httpRequest(url, {
    agent,
    headers: { authorization: token, accept: 'text/event-stream', 'unleash-client-spec': '5.2.0' },
  });
  const stream: Stream = {
    req,
    status: 0,
    connectedAt: undefined,
    updates: [],
    bytes: 0,
    ended: false,
    error: undefined,
  };
  let buffer = '';
  let event = '';
  req.on('error', (error) => {
    stream.error ??= error.message;
    stream.ended = true;
  });
  req.on('response', (res) => {
    stream.status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = performance.now();
      stream.bytes += chunk.length;
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        if (line.startsWith('event:')) {
          event = line.slice(6).trim();
          if (event === 'unleash-connected') stream.connectedAt ??= at;
        } else if (line.startsWith('data:') && event === 'unleash-updated') {
          stream.updates.push({ at, data: line });
        } else if (line === '') {
          event = '';
        }
      }
    });
    res.on('end', () => {
      stream.ended = true;
    });
    res.on('error', (error) => {
      stream.error ??= error.message;
      stream.ended = true;
    });
  });
  req.end();
  return stream;
}

/** A flag the bench turns off and on in development, and its current state. */
interface Toggle {
  flag: string;
  project: string;
  on: boolean;
}

const maxOf = (xs: number[]) => (xs.length ? Math.max(...xs) : Number.NaN);

interface ChangeResult {
  flag: string;
  state: 'on' | 'off';
  adminMs: number;
  latencies: number[];
  missing: number;
}

interface TargetResult {
  name: string;
  rssBefore: number;
  rssAfter: number;
  rssEnd: number;
  openMs: number;
  connected: number;
  failed: string[];
  hydrationBytes: number;
  cpuOpenS: number;
  changes: ChangeResult[];
  stillOpen: number;
}

/**
 * Opens the streams on `base`, reads the RSS of `pid` before and after, then makes the changes on
 * the upstream (`adminBase`) and times each one's arrival on every stream; closes the streams.
 */
async function streamsAgainst(
  name: string,
  base: string,
  pid: number,
  adminBase: string,
  token: string,
  toggles: Toggle[],
): Promise<TargetResult> {
  log(`${name}: RSS before, opening ${streamCount} streams…`);
  await sleep(2000);
  const rssBefore = await steadyRss(pid);
  const cpu0 = cpuSeconds(pid);
  const agent = new Agent({ keepAlive: false, maxSockets: streamCount + 10 });
  const t0 = performance.now();
  const streams = Array.from({ length: streamCount }, () =>
    openStream(`${base}/api/client/streaming`, token, agent),
  );
  const deadline = t0 + 120_000;
  while (streams.some((s) => s.connectedAt === undefined && !s.ended) && performance.now() < deadline) {
    await sleep(20);
  }
  const connected = streams.filter((s) => s.connectedAt !== undefined);
  const openMs = Math.max(...connected.map((s) => (s.connectedAt ?? t0) - t0));
  const failed = streams
    .filter((s) => s.connectedAt === undefined)
    .map((s) => s.error ?? `status ${s.status}`);
  log(
    `  ${connected.length}/${streamCount} got unleash-connected in ${openMs.toFixed(0)} ms${failed.length ? `; failures: ${[...new Set(failed)].slice(0, 3).join(', ')}` : ''}`,
  );
  const hydrationBytes = median(connected.map((s) => s.bytes));
  // Let the hydrations drain and the process settle before reading the memory.
  await sleep(3000);
  const cpuOpenS = cpuSeconds(pid) - cpu0;
  const rssAfter = await steadyRss(pid);
  log(
    `  RSS ${rssBefore.toFixed(1)} → ${rssAfter.toFixed(1)} MB (${(((rssAfter - rssBefore) * 1024) / streamCount).toFixed(1)} KB per stream)`,
  );
  const results: ChangeResult[] = [];
  for (let k = 0; k < changes; k++) {
    // Every flag starts on in development; each change flips one (across both targets).
    const toggle = toggles[k % toggles.length] as Toggle;
    const { flag, project } = toggle;
    toggle.on = !toggle.on;
    const state = toggle.on ? 'on' : 'off';
    const started = performance.now();
    await admin(
      adminBase,
      'POST',
      `/api/admin/projects/${project}/features/${flag}/environments/development/${state}`,
    );
    const adminMs = performance.now() - started;
    const seen = (s: Stream) => s.updates.find((u) => u.at >= started && u.data.includes(`"${flag}"`));
    const until = started + changeTimeoutMs;
    while (connected.some((s) => !seen(s)) && performance.now() < until) await sleep(5);
    const latencies: number[] = [];
    let missing = 0;
    for (const s of connected) {
      const u = seen(s);
      if (u) latencies.push(u.at - started);
      else missing++;
    }
    const r = { flag, state, adminMs, latencies, missing } satisfies ChangeResult;
    results.push(r);
    log(
      `  change ${k + 1}/${changes} (${flag} ${state}): admin request ${adminMs.toFixed(0)} ms; p50 ${percentile(latencies, 50).toFixed(0)}, p99 ${percentile(latencies, 99).toFixed(0)}, max ${maxOf(latencies).toFixed(0)} ms; within 1 s ${latencies.filter((l) => l <= 1000).length}/${connected.length}${missing ? `, ${missing} missing after ${changeTimeoutMs / 1000} s` : ''}`,
    );
    await sleep(1000);
  }
  const stillOpen = connected.filter((s) => !s.ended).length;
  // A second reading with the streams still open, after the changes (the hydrations' garbage may be gone).
  const rssEnd = await steadyRss(pid);
  log(`  RSS after the changes, streams still open: ${rssEnd.toFixed(1)} MB`);
  for (const s of streams) s.req.destroy();
  agent.destroy();
  return {
    name,
    rssBefore,
    rssAfter,
    rssEnd,
    openMs,
    connected: connected.length,
    failed,
    hydrationBytes,
    cpuOpenS,
    changes: results,
    stillOpen,
  };
}

function rowsOf(r: TargetResult): Row[] {
  const all = r.changes.flatMap((c) => c.latencies);
  const missing = r.changes.reduce((a, c) => a + c.missing, 0);
  const expected = r.connected * r.changes.length;
  const within = all.filter((l) => l <= 1000).length;
  const scenario = `${r.name}: ${streamCount} SSE streams`;
  const rows: Row[] = [
    {
      scenario,
      figure: 'streams connected (unleash-connected received)',
      value: r.connected,
      unit: '',
      target: streamCount,
      lowerIsBetter: false,
      note: `all within ${(r.openMs / 1000).toFixed(1)} s of opening them at once; hydration ${(r.hydrationBytes / 1024).toFixed(1)} KB per stream; ${r.cpuOpenS.toFixed(1)} CPU-s of the process${r.failed.length ? `; failures: ${[...new Set(r.failed)].slice(0, 3).join(', ')}` : ''}`,
    },
    { scenario, figure: 'RSS before opening the streams', value: r.rssBefore, unit: 'MB' },
    {
      scenario,
      figure: 'RSS with the streams open',
      value: r.rssAfter,
      baseline: r.rssBefore,
      unit: 'MB',
      note: '3 s after the last unleash-connected; median of 3 readings of VmRSS',
    },
    {
      scenario,
      figure: 'memory per stream',
      value: ((r.rssAfter - r.rssBefore) * 1024) / streamCount,
      unit: 'KB',
      note: `(RSS after − RSS before) / ${streamCount}`,
    },
    {
      scenario,
      figure: 'memory per stream, after the changes',
      value: ((r.rssEnd - r.rssBefore) * 1024) / streamCount,
      unit: 'KB',
      note: `RSS ${r.rssEnd.toFixed(1)} MB after the changes, the streams still open`,
    },
    {
      scenario: `${r.name}: change → unleash-updated on every stream`,
      figure: 'p50 latency',
      value: percentile(all, 50),
      unit: 'ms',
      note: `${r.changes.length} changes × ${r.connected} streams, pooled; from the start of the admin request (p50 ${median(r.changes.map((c) => c.adminMs)).toFixed(0)} ms itself)`,
    },
    {
      scenario: `${r.name}: change → unleash-updated on every stream`,
      figure: 'p99 latency',
      value: percentile(all, 99),
      unit: 'ms',
    },
    {
      scenario: `${r.name}: change → unleash-updated on every stream`,
      figure: 'max latency',
      // Missing updates make it unknown (NaN: the target is missed).
      value: missing > 0 ? Number.NaN : maxOf(all),
      unit: 'ms',
      target: 1000,
      note: `per change: ${r.changes.map((c) => `${maxOf(c.latencies).toFixed(0)}`).join(' / ')} ms`,
    },
    {
      scenario: `${r.name}: change → unleash-updated on every stream`,
      figure: 'updates within 1 s',
      value: (within / Math.max(expected, 1)) * 100,
      unit: '%',
      target: 100,
      lowerIsBetter: false,
      note: `${within} of ${expected}${missing ? `; ${missing} not received within ${changeTimeoutMs / 1000} s` : ''}; ${r.stillOpen} of ${r.connected} streams still open at the end`,
    },
  ];
  return rows;
}

async function run(db: BenchDatabase): Promise<{ rows: Row[]; notes: string[] }> {
  const notes: string[] = [];
  const first = await startService(db.target);
  await stopChild(first);
  log(`Loading ${flags} flags…`);
  const sql = await db.connect();
  await loadDataset(
    sql,
    { projects: 10, flags, strategiesPerEnv: 1, segments: 10, tags: 100, events: 1000 },
    log,
  );
  // The same thinning as bench/edge.ts (about 110 KB of client payload with 350 flags).
  const n = 'substring(feature_name from 12)::int';
  await sql.query(
    `DELETE FROM feature_strategy_segment WHERE feature_strategy_id IN (
       SELECT id FROM feature_strategies WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 8 <> 0);
     DELETE FROM feature_strategies WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 4 <> 0;
     UPDATE feature_strategies SET constraints = constraints - 0 WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 8 <> 0;
     UPDATE feature_strategies SET variants = '[]' WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 16 <> 0;
     UPDATE feature_environments SET variants = '[]' WHERE feature_name LIKE 'bench-flag-%' AND ${n} % 10 <> 0;`,
  );
  // Flags enabled in development (even name length), to turn off and on again.
  const enabled = await sql.query<{ name: string; project: string }>(
    `SELECT f.name, f.project FROM features f JOIN feature_environments fe ON fe.feature_name = f.name
     WHERE fe.environment = 'development' AND fe.enabled AND f.name LIKE 'bench-flag-%' ORDER BY f.name LIMIT ${changes}`,
  );
  await sql.close();
  const toggles: Toggle[] = enabled.map((r) => ({ flag: r.name, project: r.project, on: true }));
  if (toggles.length === 0) throw new Error('no enabled flag to toggle');

  let service: Child | undefined;
  let edge: Child | undefined;
  try {
    service = await startService({
      ...db.target,
      env: { ...db.target.env, STREAMING_MAX_CONNECTIONS: MAX_STREAMS },
    });
    const base = `http://127.0.0.1:${service.port}`;
    const created = await admin(base, 'POST', '/api/admin/api-tokens', {
      tokenName: 'bench-sse-client',
      type: 'client',
      environment: 'development',
      projects: ['*'],
    });
    const token = created.secret as string;
    const results: TargetResult[] = [];
    results.push(await streamsAgainst('Service', base, service.pid, base, token, toggles));
    if (!values['no-edge']) {
      await sleep(1000);
      edge = await startEdge(service.port, token);
      log(`Edge replica ready in ${edge.spawnToReadyMs.toFixed(0)} ms`);
      results.push(
        await streamsAgainst('Edge replica', `http://127.0.0.1:${edge.port}`, edge.pid, base, token, toggles),
      );
      notes.push(
        'Edge replica: started on the service with the same client token (`EDGE_STREAMING=true`: it follows the service’s own stream and fetches on each change); the changes are made on the service, so the latencies include the hop service → replica → streams.',
      );
    }
    notes.unshift(
      `${streamCount} streams opened at once from the bench process (node:http, one Agent with ${streamCount + 10} sockets, \`Authorization\` a development client token for all projects, \`Unleash-Client-Spec: 5.2.0\`); \`STREAMING_MAX_CONNECTIONS=${MAX_STREAMS}\`. Each change is \`POST /api/admin/projects/<p>/features/<flag>/environments/development/off\` (then \`on\` on a second pass), timed from the start of the admin request to the arrival of the \`unleash-updated\` data line naming the flag, per stream; 1 s between changes.`,
      'RSS is `VmRSS` of the service (or replica) process from `/proc/<pid>/status`; the figure per stream includes the connection, the stream’s bookkeeping and whatever the hydrations left on the heap (not yet collected), so it is an upper bound. The machine has 2 cores shared with the bench process (which parses every stream) and other work: latencies are noisy.',
    );
    return { rows: results.flatMap(rowsOf), notes };
  } finally {
    if (edge) await stopChild(edge);
    if (service) await stopChild(service);
  }
}

const { databases, cleanup } = scratchCleanup(log, stopAll);
let code = 0;
try {
  const db = await createDatabase(engine);
  databases.push(db);
  log(`Engine ${engine}: ${db.describe}`);
  const { rows, notes } = await run(db);
  printTable(rows);
  if (!values['no-write']) {
    writeSection(values.results, 'sse', [
      `### SSE streaming (\`/api/client/streaming\`), ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${machineFacts()}${process.env.BENCH_DIST === '1' ? ', service from dist/main.js' : ', service under tsx'}.`,
      `Command: \`npx tsx bench/sse.ts --engine ${engine} --flags ${flags} --streams ${streamCount} --changes ${changes}${values['no-edge'] ? ' --no-edge' : ''}\`.`,
      `Dataset: bench/lib/dataset.ts with ${flags} flags, thinned as in bench/edge.ts.`,
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
