import { execFile } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';

/** What one load run gives: latency in ms, throughput in requests per second. */
export interface LoadFigures {
  p50: number;
  p99: number;
  mean: number;
  rps: number;
  requests: number;
  errors: number;
  non2xx: number;
  /** Requests sent during the untimed warm-up (for counting database work per request). */
  warmupRequests?: number;
  /** Every response time of the timed run in ms (to pool percentiles over several runs). */
  samples?: number[];
  /** Responses of the timed run per HTTP status. */
  statuses?: Record<number, number>;
  /** measureApart on Linux: each core's clock ticks over the timed run, busy and in all. */
  cores?: { cpu: number; busy: number; total: number }[];
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Called per request: lets a scenario send a different body (e.g. a unique flag name) each time. */
  body?: () => string;
  /** Called per request (autocannon only): a different path and query each time. */
  path?: () => string;
  connections: number;
  durationS: number;
}

/** Seconds of the untimed warm-up before each timed run (JIT, pool, caches). */
export const WARMUP_S = 2;

/** Runs autocannon against one endpoint; a short untimed warm-up first (WARMUP_S). */
export async function measure(options: LoadOptions, warmupS = WARMUP_S): Promise<LoadFigures> {
  const warm = warmupS > 0 ? await run({ ...options, durationS: warmupS }) : undefined;
  return { ...(await run(options)), warmupRequests: warm?.requests ?? 0 };
}

/** Latencies come from autocannon's per-response times (sub-millisecond; its histogram has 1 ms steps). */
function run(options: LoadOptions): Promise<LoadFigures> {
  const { body, path } = options;
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        connections: options.connections,
        duration: options.durationS,
        // A generated body (or path) per request; autocannon otherwise resends the same bytes.
        requests:
          body || path
            ? [
                {
                  setupRequest: (req) => ({
                    ...req,
                    ...(body ? { body: body() } : {}),
                    ...(path ? { path: path() } : {}),
                  }),
                },
              ]
            : undefined,
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          p50: percentile(samples, 50),
          p99: percentile(samples, 99),
          mean: samples.reduce((a, b) => a + b, 0) / Math.max(samples.length, 1),
          rps: result.requests.average,
          requests: result.requests.total,
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
          samples,
          statuses,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      samples.push(responseTime);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

/**
 * The same kind of load run with Node's own HTTP client (keep-alive agent, one request at a time
 * per connection). For responses autocannon cannot parse: Fastify answers `reply.code(304)
 * .send(null)` with `Content-Length: 4` and no body, and autocannon then waits for the 4 bytes
 * forever (0 requests counted), while Node (and so unleash-client) knows a 304 has no body.
 * Slower per request than autocannon, so compare only with a baseline measured by this function.
 */
export async function measureNodeHttp(options: LoadOptions, warmupS = 2): Promise<LoadFigures> {
  const warm = warmupS > 0 ? await runNodeHttp({ ...options, durationS: warmupS }) : undefined;
  return { ...(await runNodeHttp(options)), warmupRequests: warm?.requests ?? 0 };
}

async function runNodeHttp(options: LoadOptions): Promise<LoadFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let non2xx = 0;
  const started = performance.now();
  const until = started + options.durationS * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const t = performance.now();
      const req = httpRequest(options.url, {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent,
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => {
          samples.push(performance.now() - t);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) > 299) non2xx++;
          resolve();
        });
      });
      req.end(options.body?.());
    });
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    mean: samples.reduce((a, b) => a + b, 0) / Math.max(samples.length, 1),
    rps: samples.length / elapsedS,
    requests: samples.length,
    errors,
    non2xx,
    samples,
    statuses,
  };
}

/**
 * `measure` run in a child process, so that the load generator (a busy event loop at tens of
 * thousands of requests a second) does not delay what the calling process does meanwhile (a
 * writer at a fixed rate, followers timing how soon a change is seen). Options without `body` or
 * `path` functions.
 */
export async function measureApart(options: Omit<LoadOptions, 'body' | 'path'>): Promise<LoadFigures> {
  const child = new URL('./measure-child.ts', import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', child, JSON.stringify(options)],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as LoadFigures)),
    );
  });
}
