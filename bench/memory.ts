/**
 * Resident memory of the embedded default (issue 9: ≤ 250 MB after the load at 1,000 flags).
 *
 *   npm run build && npx tsx bench/memory.ts --flags 1000 [--node-args="--v8-pool-size=2"]
 *     [--env MALLOC_ARENA_MAX=2] [--seconds 3] [--settle 30] [--no-write]
 *
 * Starts the bundled service (`node dist/main.js` with `npm start`'s node flags, what `npm start`
 * runs; `--node-args` come after them) on a new PGlite data
 * directory and a bare Fastify process (the baseline, plain node) side by side, loads the compare's
 * dataset through the admin API, runs each request kind of `--compare unleash` for a few seconds,
 * then samples both processes' RSS for `--settle` seconds (V8 returns memory some seconds after a
 * load ends). Prints RSS at each step, what the process's mappings hold (smaps), and the V8 heap
 * and external memory from the Prometheus endpoint.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBare } from './lib/baseline.js';
import { Api, ENVIRONMENTS, generateDataset, loadThroughAdminApi, PROJECT } from './lib/compare-data.js';
import { createPgliteDatabase, scratchCleanup } from './lib/db.js';
import { type LoadOptions, measure, measureNodeHttp } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import {
  ADMIN_TOKEN,
  type Child,
  freePort,
  rssMb,
  startChild,
  startNodeFlags,
  stopAll,
} from './lib/service.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '3' },
    settle: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
    'node-args': { type: 'string', default: '' },
    env: { type: 'string', default: '' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const flags = Number(values.flags);
const seconds = Number(values.seconds);
const settleS = Number(values.settle);
const connections = Number(values.connections);
const nodeArgs = String(values['node-args']).split(' ').filter(Boolean);
const extraEnv = Object.fromEntries(
  String(values.env)
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const log = (m: string) => console.log(m);
const mb = (n: number) => `${n.toFixed(0)} MB`;

/** Resident MB per kind of mapping: the V8 heap and malloc arenas are anonymous; the binary is a file. */
function smaps(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const path = header[1] ?? '';
      kind =
        path === ''
          ? 'anonymous'
          : path.startsWith('[')
            ? path
            : /\/node$/.test(path)
              ? 'node binary'
              : 'other files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] = (out[kind] ?? 0) + Number(rss[1]) / 1024;
  }
  return out;
}

/** V8 heap and external memory (PGlite's WebAssembly memory counts there) from the service itself. */
async function heap(child: Child): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${child.port}/internal-backstage/prometheus`)).text();
  const figure = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  return `V8 heap ${mb(figure('nodejs_heap_size_used_bytes'))} used of ${mb(figure('nodejs_heap_size_total_bytes'))}, external ${mb(figure('nodejs_external_memory_bytes'))}`;
}

const { databases, cleanup, release } = scratchCleanup(log, stopAll);
try {
  const dataDb = await createPgliteDatabase();
  databases.push(dataDb);
  const port = await freePort();
  const service = await startChild({
    args: [...startNodeFlags(), ...nodeArgs, 'dist/main.js'],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
      ...dataDb.target.env,
      ...extraEnv,
    },
    readyPattern: /^Listening on /,
    timeoutMs: 120_000,
    port,
  });
  // With the service's node flags (one V8 worker thread, ADR 0017): the baseline differs by the code only.
  const bare = await startBare(true, {}, startNodeFlags());
  const steps: string[][] = [];
  const step = (name: string) => {
    const row = [name, mb(rssMb(service.pid)), mb(rssMb(bare.pid))];
    steps.push(row);
    log(`  ${row.join(' | ')}`);
  };
  log(
    `Service pid ${service.pid} (node ${[...startNodeFlags(), ...nodeArgs].join(' ') || '(no flags)'}${values.env ? `, env ${values.env}` : ''}), bare pid ${bare.pid}`,
  );
  await new Promise((r) => setTimeout(r, 3_000));
  step('idle, 3 s after ready');

  const data = generateDataset(Number(values.seed), flags, 10, 20);
  const admin = new Api(`http://127.0.0.1:${service.port}`, ADMIN_TOKEN);
  const loadStarted = performance.now();
  await loadThroughAdminApi(admin, data);
  log(`Loaded ${flags} flags in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
  step(`after loading ${flags} flags`);

  const token = await admin.ok('POST', '/api/admin/api-tokens', {
    type: 'client',
    tokenName: 'bench-client',
    environment: 'development',
    projects: ['*'],
  });
  const clientToken = token.json<{ secret: string }>().secret;
  const etag =
    (
      await admin.call('GET', '/api/client/features', undefined, {
        authorization: clientToken,
        'accept-encoding': 'identity',
      })
    ).headers.get('etag') ?? '';
  const target = data.flags[Math.floor(data.flags.length / 2)]?.name ?? '';
  const base = `http://127.0.0.1:${service.port}`;
  const admins = { authorization: ADMIN_TOKEN };
  const json = { 'content-type': 'application/json', ...admins };
  const client = { authorization: clientToken };
  const flagPath = `/api/admin/projects/${PROJECT}/features`;
  const contexts = Array.from({ length: 20 }, (_, i) => `u${i}`).join(',');
  let n = 0;
  /** One load: autocannon, or Node's client where autocannon cannot (304s, 15 MB answers). */
  const load = (
    name: string,
    path: string,
    headers: Record<string, string>,
    extra: Partial<LoadOptions> = {},
    via: 'autocannon' | 'node' = 'autocannon',
  ) => ({
    name,
    via,
    options: { url: `${base}${path}`, headers, connections, durationS: seconds, ...extra },
  });
  const post = (body: () => unknown) => ({ method: 'POST' as const, body: () => JSON.stringify(body()) });
  const loads = [
    load('GET flag', `${flagPath}/${target}`, admins),
    load('events', '/api/admin/events', admins),
    load('events of a flag', `/api/admin/events/${target}`, admins),
    load(
      'playground',
      '/api/admin/playground',
      json,
      post(() => ({ environment: 'development', projects: '*', context: { appName: 'web', userId: 'u7' } })),
    ),
    load(
      'advanced playground',
      '/api/admin/playground/advanced',
      json,
      {
        ...post(() => ({
          environments: [...ENVIRONMENTS],
          projects: '*',
          context: { appName: 'web', userId: contexts },
        })),
        connections: 2,
      },
      'node',
    ),
    load('client 200', '/api/client/features', client),
    load('client gzip', '/api/client/features', { ...client, 'accept-encoding': 'gzip,deflate' }),
    load(
      'client 304',
      '/api/client/features',
      { ...client, 'if-none-match': etag, 'accept-encoding': 'identity' },
      {},
      'node',
    ),
    load('PUT flag', `${flagPath}/${target}`, json, {
      ...post(() => ({ description: `d${n++}`, type: 'release' })),
      method: 'PUT',
    }),
    load(
      'create flag',
      flagPath,
      json,
      post(() => ({ name: `mem-${n++}`, type: 'release' })),
    ),
  ];
  for (const { name, options, via } of loads) {
    const f = via === 'node' ? await measureNodeHttp(options, 0) : await measure(options, 0);
    log(
      `  ${name}: ${f.rps.toFixed(1)} req/s${f.errors + f.non2xx > 0 ? ` (${f.errors} errors, ${f.non2xx} non-2xx)` : ''}`,
    );
  }
  step('right after the requests');
  log(`  ${await heap(service)}`);

  let lowest = Number.POSITIVE_INFINITY;
  for (let s = 0; s < settleS; s++) {
    await new Promise((r) => setTimeout(r, 1_000));
    lowest = Math.min(lowest, rssMb(service.pid));
  }
  step(`${settleS} s later`);
  steps.push([`lowest in those ${settleS} s`, mb(lowest), '']);
  const heapAfter = await heap(service);
  const maps = Object.entries(smaps(service.pid))
    .sort((a, b) => b[1] - a[1])
    .filter(([, v]) => v >= 1)
    .map(([k, v]) => `${k} ${mb(v)}`)
    .join(', ');
  log(`  ${heapAfter}\n  mappings: ${maps}`);

  const lines = [
    '### Embedded memory (PGlite, bundled service)',
    '',
    `Run ${new Date().toISOString().replace('T', ' ').slice(0, 16)} on ${machineFacts()}: \`npx tsx bench/memory.ts --flags ${flags} --seconds ${seconds} --settle ${settleS}${nodeArgs.length ? ` --node-args="${nodeArgs.join(' ')}"` : ''}${values.env ? ` --env ${values.env}` : ''}\`, service \`node ${[...startNodeFlags(), ...nodeArgs].join(' ')} dist/main.js\`. Baseline: a bare Fastify process (plain node, the same node flags) started alongside.`,
    '',
    '| step | service RSS | bare Fastify RSS |',
    '| --- | --- | --- |',
    ...steps.map((r) => `| ${r.join(' | ')} |`),
    '',
    `After settling: ${heapAfter}; resident by mapping: ${maps}. Target: ≤ 250 MB after the load at 1,000 flags.`,
  ];
  if (!values['no-write']) writeSection(String(values.results), 'memory', lines);
  else log(lines.join('\n'));
} finally {
  await cleanup();
  release();
}
