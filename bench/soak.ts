/**
 * Soak (issue 17; on demand, not CI): one service under a mixed load at a fixed rate for
 * SOAK_MINUTES (default 5). Every minute it samples the service's RSS (median of six samples) and
 * the latencies of that minute (p50, p99), and the tables that grow with use (events, hourly
 * metrics); at the end it prints the curve and a verdict: RSS over the minutes after the warm-up
 * (their least-squares trend) grows by at most 10 %, and p99 is stable (no minute after the
 * warm-up above twice their median, the last no more than 1.5 × the first, + 2 ms for timer noise).
 *
 *   npx tsx bench/soak.ts                          # PostgreSQL (BENCH_PG_URL), 5 minutes, 50 req/s
 *   SOAK_MINUTES=30 npx tsx bench/soak.ts --rate 200
 *   npx tsx bench/soak.ts --engine pglite
 *
 * The mix (per 20 requests): 6 admin flag reads, 6 client-API feature fetches (half with the
 * ETag of the last answer, as SDKs poll), 2 playground evaluations, 2 flag description edits,
 * 2 strategy updates, 2 client metrics reports. Requests start on schedule whatever the answers
 * (an open loop); more than --max-in-flight outstanding ones are counted as dropped, not sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { flagName, loadDataset, projectOf } from './lib/dataset.js';
import { type BenchDatabase, createDatabase, scratchCleanup } from './lib/db.js';
import { median, percentile } from './lib/measure.js';
import { machineFacts } from './lib/report.js';
import { ADMIN_TOKEN, type Child, rssMb, startService, stopAll, stopChild } from './lib/service.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    pglite: { type: 'boolean', default: false },
    minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '5' },
    rate: { type: 'string', default: '50' },
    flags: { type: 'string', default: '500' },
    'warmup-minutes': { type: 'string', default: '1' },
    'max-in-flight': { type: 'string', default: '200' },
  },
});
const engine = values.pglite ? 'pglite' : values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const flags = Number(values.flags);
const warmup = Number(values['warmup-minutes']);
const maxInFlight = Number(values['max-in-flight']);
if (!(minutes > warmup && warmup >= 0)) throw new Error('SOAK_MINUTES must be more than the warm-up');
const PROJECTS = 10;
const ENV = 'development';
const log = (m: string) => console.log(m);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'admin-read' | 'client' | 'playground' | 'edit' | 'strategy' | 'metrics';
/** One cycle of 20 requests: the mix. */
const CYCLE: Kind[] = [
  ...Array<Kind>(6).fill('admin-read'),
  ...Array<Kind>(6).fill('client'),
  ...Array<Kind>(2).fill('playground'),
  ...Array<Kind>(2).fill('edit'),
  ...Array<Kind>(2).fill('strategy'),
  ...Array<Kind>(2).fill('metrics'),
];

interface Minute {
  minute: number;
  requests: number;
  errors: number;
  dropped: number;
  p50: number;
  p99: number;
  byKind: Partial<Record<Kind, number>>;
  rssMb: number;
  /** CPU seconds the service used in the minute (user + system). */
  cpuS: number;
  /** The machine's one-minute load average at the minute's end (other work on the host). */
  load: number;
  /** Controls, outside the service: p99 event-loop delay of this bench process, in ms ... */
  benchLag: number;
  /** ... and p99 of a `SELECT 1` from this process once a second (PostgreSQL only). */
  dbPing: number | undefined;
  events: number;
  metricRows: number | undefined;
}

async function run(db: BenchDatabase) {
  const first = await startService(db.target);
  await stopChild(first);
  log(`Loading ${flags} flags…`);
  const sql = await db.connect();
  await loadDataset(
    sql,
    { projects: PROJECTS, flags, strategiesPerEnv: 2, segments: 50, tags: 100, events: 1000 },
    log,
  );
  // PGlite: one process at a time on the data directory.
  if (engine === 'pglite') await sql.close();
  const service = await startService(db.target);
  const base = `http://127.0.0.1:${service.port}`;
  const call = async (method: string, path: string, body?: unknown, token = ADMIN_TOKEN, etag?: string) => {
    const res = await fetch(base + path, {
      method,
      headers: {
        authorization: token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(etag ? { 'if-none-match': etag } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, etag: res.headers.get('etag') ?? undefined };
  };
  const json = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text);
  };
  const clientToken = (
    await json('POST', '/api/admin/api-tokens', {
      tokenName: 'soak-sdk',
      type: 'client',
      environment: ENV,
      projects: ['*'],
    })
  ).secret as string;
  // The flags the writes go to (a fifth of them), with their first strategy in development.
  const edited: { name: string; project: string; strategy: string }[] = [];
  for (let i = 1; i <= flags; i += 5) {
    const [name, project] = [flagName(i), projectOf(i, PROJECTS)];
    const flag = await json('GET', `/api/admin/projects/${project}/features/${name}`);
    const env = flag.environments.find((e: { name: string }) => e.name === ENV);
    edited.push({ name, project, strategy: env.strategies[0].id });
  }
  const tables = async () => {
    const events = JSON.parse((await call('GET', '/api/admin/events')).text).totalEvents as number;
    if (engine === 'pglite') return { events, metricRows: undefined };
    const [row] = await sql.query<{ n: string }>('SELECT count(*) AS n FROM client_metrics_env');
    return { events, metricRows: Number(row?.n) };
  };

  let n = 0;
  let etag: string | undefined;
  const request = (kind: Kind, i: number): Promise<{ status: number }> => {
    const target = edited[i % edited.length]!;
    const flagPath = `/api/admin/projects/${target.project}/features/${target.name}`;
    const f = 1 + (i % flags);
    switch (kind) {
      case 'admin-read':
        return call('GET', `/api/admin/projects/${projectOf(f, PROJECTS)}/features/${flagName(f)}`);
      case 'client':
        return call('GET', '/api/client/features', undefined, clientToken, i % 2 ? etag : undefined).then(
          (res) => {
            if (res.status === 200) etag = res.etag;
            return res;
          },
        );
      case 'playground':
        return call('POST', '/api/admin/playground', {
          environment: ENV,
          projects: '*',
          context: { appName: i % 2 ? 'web-soak' : 'ios-soak', userId: `u${i % 1000}` },
        });
      case 'edit':
        return call('PATCH', flagPath, [{ op: 'replace', path: '/description', value: `soak ${i}` }]);
      case 'strategy':
        return call('PUT', `${flagPath}/environments/${ENV}/strategies/${target.strategy}`, {
          name: 'flexibleRollout',
          parameters: { rollout: String(i % 101), stickiness: 'default', groupId: target.name },
        });
      case 'metrics': {
        const now = new Date().toISOString();
        const toggles = Object.fromEntries(
          Array.from({ length: 10 }, (_, k) => [flagName(1 + ((i + k) % flags)), { yes: k, no: 1 }]),
        );
        return call(
          'POST',
          '/api/client/metrics',
          {
            appName: `soak-app-${i % 5}`,
            instanceId: `i${i % 20}`,
            bucket: { start: now, stop: now, toggles },
          },
          clientToken,
        );
      }
    }
  };

  log(
    `Soak: ${minutes} min at ${rate} req/s on ${engine} (${flags} flags), warm-up ${warmup} min, service pid ${service.pid}`,
  );
  type Bucket = { latencies: number[]; byKind: Map<Kind, number[]>; errors: number; dropped: number };
  const newBucket = (): Bucket => ({ latencies: [], byKind: new Map(), errors: 0, dropped: 0 });
  /** Each minute's requests (their latencies land in it when they end, also after the minute). */
  const closed: {
    bucket: Bucket;
    rssMb: number;
    cpuS: number;
    load: number;
    benchLag: number;
    dbPing: number | undefined;
    events: number;
    metricRows: number | undefined;
  }[] = [];
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  let pings: number[] = [];
  const pinger =
    engine === 'postgres'
      ? setInterval(() => {
          const t0 = performance.now();
          sql.query('SELECT 1').then(() => pings.push(performance.now() - t0));
        }, 1000)
      : undefined;
  let cpuBefore = cpuSeconds(service.pid);
  let inFlight = 0;
  let current = newBucket();
  const rss: number[] = [];
  const started = performance.now();
  const end = started + minutes * 60_000;
  let sent = 0;
  /** Requests slower than a second: when they started (s into the run), what, how long. */
  const slow: { at: number; kind: Kind; ms: number }[] = [];
  let minuteEnd = started + 60_000;
  let nextRss = started + 10_000;
  while (closed.length < minutes) {
    const now = performance.now();
    // Open loop: as many requests as the schedule says by now.
    const due = Math.floor(((Math.min(now, end) - started) / 1000) * rate);
    for (; sent < due; sent++) {
      if (inFlight >= maxInFlight) {
        current.dropped += 1;
        continue;
      }
      const kind = CYCLE[n % CYCLE.length]!;
      const i = n++;
      const bucket = current;
      const t0 = performance.now();
      inFlight += 1;
      request(kind, i)
        .then(
          (res) => {
            const ms = performance.now() - t0;
            bucket.latencies.push(ms);
            if (ms > 1000) slow.push({ at: (t0 - started) / 1000, kind, ms });
            const list = bucket.byKind.get(kind) ?? [];
            list.push(ms);
            bucket.byKind.set(kind, list);
            if (res.status >= 400) bucket.errors += 1;
          },
          () => {
            bucket.errors += 1;
          },
        )
        .finally(() => {
          inFlight -= 1;
        });
    }
    if (now >= nextRss) {
      rss.push(rssMb(service.pid));
      nextRss += 10_000;
    }
    if (now >= minuteEnd) {
      const done = current;
      current = newBucket();
      const sizes = await tables();
      const cpuNow = cpuSeconds(service.pid);
      const [load = 0] = loadavg();
      closed.push({
        bucket: done,
        rssMb: median(rss.splice(0)),
        cpuS: cpuNow - cpuBefore,
        load,
        benchLag: lag.percentile(99) / 1e6,
        dbPing: engine === 'postgres' ? percentile(pings, 99) : undefined,
        ...sizes,
      });
      lag.reset();
      pings = [];
      cpuBefore = cpuNow;
      const last = closed.at(-1)!;
      log(
        `  minute ${closed.length}: ${done.latencies.length} answered so far, p99 so far ${percentile(done.latencies, 99).toFixed(1)} ms, RSS ${last.rssMb.toFixed(1)} MB, ${sizes.events} events`,
      );
      minuteEnd += 60_000;
    }
    await sleep(5);
  }
  if (pinger) clearInterval(pinger);
  lag.disable();
  // The last requests end (or time out in fetch) before the figures are taken.
  for (let waited = 0; inFlight > 0 && waited < 60_000; waited += 50) await sleep(50);
  const curve: Minute[] = closed.map(({ bucket, ...rest }, index) => ({
    minute: index + 1,
    requests: bucket.latencies.length,
    errors: bucket.errors,
    dropped: bucket.dropped,
    p50: percentile(bucket.latencies, 50),
    p99: percentile(bucket.latencies, 99),
    byKind: Object.fromEntries([...bucket.byKind].map(([k, xs]) => [k, percentile(xs, 99)])),
    ...rest,
  }));
  if (engine === 'postgres') await sql.close();
  await stopChild(service as Child);
  // What the service printed (with BENCH_NODE_ARGS=--trace-gc: its collections), to line up with
  // the minutes above.
  if (process.env.SOAK_SERVICE_LOG) writeFileSync(process.env.SOAK_SERVICE_LOG, (service as Child).output());
  // Slow requests cluster in stalls (something held everything for a while) or spread out.
  const bySecond = new Map<number, typeof slow>();
  for (const r of slow) bySecond.set(Math.floor(r.at), [...(bySecond.get(Math.floor(r.at)) ?? []), r]);
  const worst = [...bySecond].sort((a, b) => b[1].length - a[1].length).slice(0, 8);
  log(`Requests over 1 s: ${slow.length}; the seconds (into the run) in which most of them started:`);
  for (const [second, rs] of worst.sort((a, b) => a[0] - b[0])) {
    const kinds = [...new Set(rs.map((r) => r.kind))].join(', ');
    log(`  ${second} s: ${rs.length} (${kinds}), up to ${Math.max(...rs.map((r) => r.ms)).toFixed(0)} ms`);
  }
  return curve;
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime: fields 14 and 15 of the line, 11 and 12 counting from the state after the name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function report(curve: Minute[]) {
  const kinds = [...new Set(curve.flatMap((m) => Object.keys(m.byKind)))] as Kind[];
  const head = [
    'Minute',
    'Requests',
    'Errors',
    'Dropped',
    'p50 ms',
    'p99 ms',
    ...kinds.map((k) => `p99 ${k}`),
    'RSS MB',
    'Service CPU s',
    'Host load',
    'Bench lag p99 ms',
    'DB ping p99 ms',
    'Events',
    'Metric rows',
  ];
  const rows = curve.map((m) => [
    String(m.minute) + (m.minute <= warmup ? ' (warm-up)' : ''),
    String(m.requests),
    String(m.errors),
    String(m.dropped),
    m.p50.toFixed(1),
    m.p99.toFixed(1),
    ...kinds.map((k) => (m.byKind[k] ?? Number.NaN).toFixed(1)),
    m.rssMb.toFixed(1),
    m.cpuS.toFixed(1),
    m.load.toFixed(1),
    m.benchLag.toFixed(1),
    m.dbPing === undefined ? '-' : m.dbPing.toFixed(1),
    String(m.events),
    m.metricRows === undefined ? '-' : String(m.metricRows),
  ]);
  const line = (xs: string[]) => `| ${xs.join(' | ')} |`;
  log('');
  log(line(head));
  log(line(head.map(() => '---')));
  for (const r of rows) log(line(r));

  const after = curve.filter((m) => m.minute > warmup);
  const base = curve.find((m) => m.minute === warmup) ?? after[0]!;
  const endVsWarmup = (after.at(-1)!.rssMb - base.rssMb) / base.rssMb;
  // Growth is the trend of the minutes after the warm-up (least squares), not two samples: the
  // heap swings by ~170 MB between old-generation collections under this load, so one minute's
  // RSS lands anywhere in a ±5 % band, and the warm-up minute is often below the working size.
  const rssAt = leastSquares(after.map((m) => [m.minute, m.rssMb] as const));
  const first = after[0]!.minute;
  const last = after.at(-1)!.minute;
  const growth = (rssAt(last) - rssAt(first)) / rssAt(first);
  const p99s = after.map((m) => m.p99);
  const p99Median = median(p99s);
  const worst = Math.max(...p99s);
  const trend = p99s.at(-1)! <= 1.5 * p99s[0]! + 2;
  const stable = worst <= 2 * p99Median + 2 && trend;
  const errors = curve.reduce((s, m) => s + m.errors, 0);
  const memoryOk = growth <= 0.1;
  log('');
  log(
    `RSS: ${base.rssMb.toFixed(1)} MB in the warm-up's last minute, ${after.at(-1)!.rssMb.toFixed(1)} MB at the end (${(endVsWarmup * 100).toFixed(1)} %); trend of minutes ${first}-${last}: ${rssAt(first).toFixed(1)} → ${rssAt(last).toFixed(1)} MB, ${(growth * 100).toFixed(1)} % (limit 10 %) → ${memoryOk ? 'flat' : 'GROWING'}`,
  );
  log(
    `p99 after the warm-up: ${p99s.map((x) => x.toFixed(1)).join(', ')} ms; median ${p99Median.toFixed(1)}, worst ${worst.toFixed(1)} (limit 2 × median + 2), last vs first ${trend ? 'ok' : 'RISING'} → ${stable ? 'stable' : 'UNSTABLE'}`,
  );
  log(`Errors (status ≥ 400 or no answer): ${errors}`);
  const ok = memoryOk && stable && errors === 0;
  log(`Verdict: ${ok ? 'PASS' : 'FAIL'} (${machineFacts()})`);
  return ok;
}

/** The least-squares line through the points, as a function (one point: constant). */
function leastSquares(points: readonly (readonly [number, number])[]): (x: number) => number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
  return (x) => my + slope * (x - mx);
}

const { databases, cleanup } = scratchCleanup(log, stopAll);
let code = 1;
try {
  const db = await createDatabase(engine);
  databases.push(db);
  code = report(await run(db)) ? 0 : 1;
} catch (error) {
  console.error(error);
} finally {
  await cleanup();
}
process.exit(code);
