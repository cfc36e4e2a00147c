/**
 * The evaluation-serving scenarios: the advanced playground (100,000 evaluations in one request)
 * and the SDK endpoint GET /api/client/features (304 and full 200), each next to a bare Fastify
 * figure measured in the same run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { startBare } from './baseline.js';
import type { BenchDatabase, Sql } from './db.js';
import { type LoadFigures, measure, measureNodeHttp, median } from './measure.js';
import type { Row } from './report.js';
import { ADMIN_TOKEN, type Child, startService, stopChild } from './service.js';

export interface ServingContext {
  db: BenchDatabase;
  connections: number;
  durationS: number;
  flags: number;
  /** The bare Fastify GET /bare, measured once in this run with the same settings. */
  bare: LoadFigures;
  /** Timed playground requests after the first one. */
  playgroundRuns: number;
  log: (m: string) => void;
}

const CLIENT_SECRET = '*:development.bench-client-token-0123456789abcdef';
/** What unleash-client 6 announces: segments are sent separately, not inlined. */
const CLIENT_SPEC = '5.2.0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Timed {
  status: number;
  bytes: number;
  ttfbMs: number;
  totalMs: number;
  headers: Record<string, string | string[] | undefined>;
  body?: string;
}

/** One HTTP request on a fresh connection, streaming: bytes counted, time to first byte and to the end. */
function timedRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; keepBody?: boolean },
): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let ttfbMs = Number.NaN;
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) ttfbMs = performance.now() - started;
        bytes += chunk.length;
        if (options.keepBody) chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          ttfbMs,
          totalMs: performance.now() - started,
          headers: res.headers,
          ...(options.keepBody ? { body: Buffer.concat(chunks).toString('utf8') } : {}),
        }),
      );
    });
    req.end(options.body);
  });
}

/** VmRSS and VmHWM of a process in kB. */
function memoryKb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN),
    hwm: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN),
  };
}

/** Samples VmRSS every `everyMs` until stopped; returns the peak in kB. */
function rssSampler(pid: number, everyMs = 10): { stop: () => { peakKb: number; samples: number } } {
  let peakKb = memoryKb(pid).rss;
  let samples = 1;
  const timer = setInterval(() => {
    try {
      peakKb = Math.max(peakKb, memoryKb(pid).rss);
      samples++;
    } catch {
      // the process ended; the caller sees the failed request
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      peakKb = Math.max(peakKb, memoryKb(pid).rss);
      return { peakKb, samples: samples + 1 };
    },
  };
}

const MB = 1024 * 1024;

/**
 * POST /api/admin/playground/advanced: every flag × 2 environments × 50 contexts (userId u0..u49).
 * A fresh service for the memory figure: a small request first (snapshots compiled, code warm),
 * then the full one while VmRSS is sampled every 10 ms; then more timed runs on the same process.
 */
export async function playground(ctx: ServingContext): Promise<Row[]> {
  const service = await startService(ctx.db.target);
  const bare = await startBare();
  try {
    const url = `http://127.0.0.1:${service.port}/api/admin/playground/advanced`;
    const headers = { authorization: ADMIN_TOKEN, 'content-type': 'application/json' };
    const users = Array.from({ length: 50 }, (_, i) => `u${i}`).join(',');
    const payload = (userId: string) =>
      JSON.stringify({
        environments: ['development', 'production'],
        projects: '*',
        context: { appName: 'web', userId },
      });
    const warm = await timedRequest(url, { method: 'POST', headers, body: payload('u0') });
    if (warm.status !== 200) throw new Error(`playground warm-up answered ${warm.status}`);
    await sleep(1_000);

    const before = memoryKb(service.pid);
    const sampler = rssSampler(service.pid);
    const first = await timedRequest(url, { method: 'POST', headers, body: payload(users), keepBody: true });
    const { peakKb, samples } = sampler.stop();
    const after = memoryKb(service.pid);
    if (first.status !== 200)
      throw new Error(`playground answered ${first.status}: ${first.body?.slice(0, 500)}`);
    const parsed = JSON.parse(first.body ?? '{}') as {
      features: { environments: Record<string, { isEnabled: boolean }[]> }[];
    };
    const entries = parsed.features.flatMap((f) => Object.values(f.environments).flat());
    const enabled = entries.filter((e) => e.isEnabled).length;
    const growthMb = (peakKb - before.rss) / 1024;
    const hwmGrowthMb = (Math.max(after.hwm, before.hwm) - before.rss) / 1024;
    const sizeMb = first.bytes / MB;
    ctx.log(
      `  first: ${first.totalMs.toFixed(0)} ms, ${sizeMb.toFixed(1)} MB, ${entries.length} evaluations (${enabled} enabled), RSS ${(before.rss / 1024).toFixed(0)} → peak ${(peakKb / 1024).toFixed(0)} MB (${samples} samples)`,
    );
    const runs: Timed[] = [first];
    const growths: number[] = [growthMb];
    for (let i = 0; i < ctx.playgroundRuns; i++) {
      const base = memoryKb(service.pid).rss;
      const s = rssSampler(service.pid);
      const r = await timedRequest(url, { method: 'POST', headers, body: payload(users) });
      growths.push((s.stop().peakKb - base) / 1024);
      if (r.status !== 200) throw new Error(`playground answered ${r.status}`);
      runs.push(r);
      ctx.log(`  run ${i + 1}: ${r.totalMs.toFixed(0)} ms (first byte ${r.ttfbMs.toFixed(0)} ms)`);
    }
    const blobUrl = `http://127.0.0.1:${bare.port}/bare/blob/${first.bytes}`;
    await timedRequest(blobUrl, {}); // builds the blob once
    const blobs: Timed[] = [];
    for (let i = 0; i < 3; i++) blobs.push(await timedRequest(blobUrl, {}));
    const total = median(runs.map((r) => r.totalMs));
    const ttfb = median(runs.map((r) => r.ttfbMs));
    const blobTotal = median(blobs.map((r) => r.totalMs));
    const name = `advanced playground, ${ctx.flags} flags × 2 environments × 50 contexts`;
    return [
      {
        scenario: name,
        figure: `end to end (median of ${runs.length})`,
        value: total,
        baseline: blobTotal,
        unit: 'ms',
        target: 2000,
        note: `min ${Math.min(...runs.map((r) => r.totalMs)).toFixed(0)}, max ${Math.max(...runs.map((r) => r.totalMs)).toFixed(0)}; baseline: bare Fastify sending a pre-serialised body of the same size`,
      },
      {
        scenario: name,
        figure: 'time to first byte (median)',
        value: ttfb,
        baseline: median(blobs.map((r) => r.ttfbMs)),
        unit: 'ms',
        note: 'evaluation, report building and serialisation happen before the first byte',
      },
      {
        scenario: name,
        figure: 'evaluations in the response',
        value: entries.length,
        unit: '',
        note: `${enabled} enabled; checked by parsing the first response`,
      },
      { scenario: name, figure: 'response size', value: sizeMb, unit: 'MB', note: `${first.bytes} bytes` },
      {
        scenario: name,
        figure: 'peak RSS growth during the request',
        value: growthMb,
        unit: 'MB',
        note: `fresh process after one small request: VmRSS ${(before.rss / 1024).toFixed(0)} MB before, peak ${(peakKb / 1024).toFixed(0)} MB (sampled every 10 ms, ${samples} samples); VmHWM says ${hwmGrowthMb.toFixed(0)} MB; later runs ${growths
          .slice(1)
          .map((g) => g.toFixed(0))
          .join(', ')} MB`,
      },
      {
        scenario: name,
        figure: 'peak RSS growth / response size',
        value: growthMb / sizeMb,
        unit: '×',
        target: 3,
      },
    ];
  } finally {
    await stopChild(bare);
    await stopChild(service);
  }
}

async function xactCommits(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(row?.n);
}

/**
 * GET /api/client/features with a client token (development, all projects), as unleash-client 6
 * asks for it: 304 with the current ETag, and the full 200. Database transactions of the run are
 * counted from pg_stat_database and the background rate (revision poll, token cache refresh),
 * measured in an idle window just before, is subtracted.
 */
export async function clientFeatures(ctx: ServingContext): Promise<Row[]> {
  const sql = await ctx.db.connect();
  const service = await startService(ctx.db.target);
  let bare: Child | undefined;
  try {
    await sql.query(
      `INSERT INTO api_tokens (secret_hash, token_name, type, environment, projects, display_prefix)
       VALUES ($1, 'bench-client', 'client', 'development', '{*}', 'bench') ON CONFLICT DO NOTHING`,
      [createHash('sha256').update(CLIENT_SECRET, 'utf8').digest('hex')],
    );
    const url = `http://127.0.0.1:${service.port}/api/client/features`;
    const headers = { authorization: CLIENT_SECRET, 'unleash-client-spec': CLIENT_SPEC };
    const full = await timedRequest(url, { headers, keepBody: true });
    if (full.status !== 200) throw new Error(`client features answered ${full.status}: ${full.body}`);
    const etag = String(full.headers.etag);
    const body = JSON.parse(full.body ?? '{}') as {
      features: { enabled: boolean; strategies: unknown[] }[];
      segments?: unknown[];
    };
    const notModified = await timedRequest(url, { headers: { ...headers, 'if-none-match': etag } });
    if (notModified.status !== 304) throw new Error(`If-None-Match answered ${notModified.status}`);
    ctx.log(
      `  payload: ${body.features.length} flags, ${body.segments?.length ?? 0} segments, ${full.bytes} bytes, ETag ${etag}`,
    );

    // Background transactions while idle (stats reach pg_stat_database within ~10 s of idling).
    const windowS = ctx.durationS + 4;
    await sleep(11_000);
    const t0 = performance.now();
    const c0 = await xactCommits(sql);
    await sleep(windowS * 1000);
    const t1 = performance.now();
    const c1 = await xactCommits(sql);
    const settings = { connections: ctx.connections, durationS: ctx.durationS };
    const h304 = { ...headers, 'if-none-match': etag };
    bare = await startBare();
    // autocannon stalls on the service's 304 (Content-Length: 4, no body): recorded, then Node's client.
    const stalled = await measure({ url, headers: h304, connections: ctx.connections, durationS: 2 }, 0);
    ctx.log(`  304 with autocannon: ${stalled.requests} responses in 2 s`);
    ctx.log('  304 with If-None-Match (Node http client)…');
    const f304 = await measureNodeHttp({ url, headers: h304, ...settings });
    const bare304 = await measureNodeHttp({ url: `http://127.0.0.1:${bare.port}/bare`, ...settings });
    ctx.log('  200 full…');
    const f200 = await measure({ url, headers, ...settings });
    ctx.log('  200 full, gzip accepted…');
    const f200gz = await measure({ url, headers: { ...headers, 'accept-encoding': 'gzip' }, ...settings });
    await sleep(11_000);
    const t2 = performance.now();
    const c2 = await xactCommits(sql);
    const idleRate = (c1 - c0 - 1) / ((t1 - t0) / 1000);
    const background = idleRate * ((t2 - t1) / 1000);
    const requests =
      stalled.requests +
      f304.requests +
      f200.requests +
      f200gz.requests +
      (f200gz.warmupRequests ?? 0) +
      (f304.warmupRequests ?? 0) +
      (f200.warmupRequests ?? 0);
    const perRequest = (c2 - c1 - 1 - background) / requests;
    ctx.log(
      `  transactions: idle ${c1 - c0 - 1} in ${((t1 - t0) / 1000).toFixed(1)} s (${idleRate.toFixed(2)}/s); load window ${c2 - c1 - 1} in ${((t2 - t1) / 1000).toFixed(1)} s for ${requests} requests`,
    );

    const blob = await measure({
      url: `http://127.0.0.1:${bare.port}/bare/blob/${full.bytes}`,
      connections: ctx.connections,
      durationS: ctx.durationS,
    });
    const rows = (
      label: string,
      f: LoadFigures,
      base: LoadFigures,
      target: number,
      expect: string,
    ): Row[] => {
      const status =
        f.errors > 0 || (label.startsWith('304') ? f.non2xx !== f.requests : f.non2xx > 0)
          ? `${f.errors} errors, ${f.non2xx} non-2xx of ${f.requests}`
          : `${f.requests} requests, all ${expect}`;
      const name = `GET /api/client/features, ${body.features.length} flags, ${label}`;
      return [
        {
          scenario: name,
          figure: 'throughput',
          value: f.rps,
          baseline: base.rps,
          unit: 'req/s',
          lowerIsBetter: false,
          note: status,
        },
        {
          scenario: name,
          figure: 'throughput / bare route',
          value: f.rps / base.rps,
          unit: '×',
          target,
          lowerIsBetter: false,
          note: `baseline: bare Fastify GET /bare (small JSON), same settings and load client (${base === ctx.bare ? 'autocannon' : 'Node http'})`,
        },
        { scenario: name, figure: 'p50 latency', value: f.p50, baseline: base.p50, unit: 'ms' },
        { scenario: name, figure: 'p99 latency', value: f.p99, baseline: base.p99, unit: 'ms' },
      ];
    };
    return [
      ...rows('304 (If-None-Match: current ETag), Node http client', f304, bare304, 0.5, '304'),
      {
        scenario: 'GET /api/client/features, 304 with autocannon',
        figure: 'responses in 2 s',
        value: stalled.requests,
        unit: '',
        note: `autocannon waits for a body: the 304 carries Content-Length: 4 (reply.code(304).send(null)); bare route with autocannon: ${ctx.bare.rps.toFixed(0)} req/s`,
      },
      ...rows(`200 (${(full.bytes / 1024).toFixed(0)} KB body)`, f200, ctx.bare, 0.3, '200'),
      ...rows('200, Accept-Encoding: gzip (pre-compressed body)', f200gz, ctx.bare, 0.3, '200'),
      {
        scenario: `GET /api/client/features, ${body.features.length} flags, 200`,
        figure: 'throughput vs bare Fastify sending the same bytes',
        value: f200.rps,
        baseline: blob.rps,
        unit: 'req/s',
        lowerIsBetter: false,
        note: `for information: bare route returning a pre-serialised ${full.bytes}-byte string (p50 ${blob.p50.toFixed(2)} ms)`,
      },
      {
        scenario: 'GET /api/client/features, database work',
        figure: 'transactions per 1,000 requests',
        value: perRequest * 1000,
        unit: '',
        note: `pg_stat_database xact_commit+xact_rollback: ${c2 - c1 - 1} in the ${((t2 - t1) / 1000).toFixed(0)} s load window for ${requests} requests (warm-ups included), minus the idle rate ${idleRate.toFixed(2)}/s measured just before (${background.toFixed(0)} expected)`,
      },
    ];
  } finally {
    if (bare) await stopChild(bare);
    await stopChild(service);
    await sql.close();
  }
}
