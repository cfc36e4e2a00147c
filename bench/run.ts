/**
 * Benchmark runner (on demand, not in CI). See bench/README.md.
 *   npx tsx bench/run.ts --engine postgres --flags 1000 --events 1000000 --scenarios create,get,events,startup,rss
 *   npx tsx bench/run.ts --compare unleash --flags 200   (bench/compare.ts)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type DatasetSize, loadDataset } from './lib/dataset.js';
import { type BenchDatabase, createDatabase } from './lib/db.js';
import type { LoadFigures } from './lib/measure.js';
import { type EngineResults, printTable, type Row, writeResults } from './lib/report.js';
import * as scenario from './lib/scenarios.js';
import { rssMb, startService, stopAll, stopChild } from './lib/service.js';
import * as serving from './lib/serving.js';

// `npm run bench -- --compare unleash …`: Flagship against another server (bench/compare.ts), with
// its own options; the rest of this file is the single-service bench.
if (process.argv.slice(2).some((a) => a === '--compare' || a.startsWith('--compare='))) {
  const { compare } = await import('./compare.js');
  const code = await compare(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}

const DEFAULT = ['create', 'get', 'events', 'startup', 'rss'] as const;
/** Evaluation serving (advanced playground, client API): written to their own RESULTS.md section. */
const SERVING = ['playground', 'client'] as const;
const ALL = [...DEFAULT, ...SERVING] as const;
type Scenario = (typeof ALL)[number];

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    projects: { type: 'string', default: '10' },
    flags: { type: 'string', default: '1000' },
    strategies: { type: 'string', default: '2' },
    segments: { type: 'string', default: '50' },
    tags: { type: 'string', default: '100' },
    events: { type: 'string', default: '1000000' },
    scenarios: { type: 'string', default: DEFAULT.join(',') },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    restarts: { type: 'string', default: '5' },
    'playground-runs': { type: 'string', default: '5' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});

const int = (name: keyof typeof values, min = 0): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return n;
};
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const scenarios = String(values.scenarios)
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as Scenario[];
for (const s of scenarios) if (!ALL.includes(s)) throw new Error(`unknown scenario ${s}; known: ${ALL}`);
const size: DatasetSize = {
  projects: int('projects', 1),
  flags: int('flags', 1),
  strategiesPerEnv: int('strategies', 1),
  segments: int('segments', 1),
  tags: int('tags', 1),
  events: int('events'),
};
const connections = int('connections', 1);
const durationS = int('duration', 1);
const log = (m: string) => console.log(m);

async function main(db: BenchDatabase): Promise<{ results: EngineResults; serving: EngineResults }> {
  const notes: string[] = [];
  log(`Engine ${engine}: ${db.describe}`);
  const first = await startService(db.target);
  log(`First start (creates the schema): ${Math.round(first.spawnToReadyMs)} ms`);
  notes.push(`First start on an empty database (migrations): ${Math.round(first.spawnToReadyMs)} ms.`);
  await stopChild(first);

  log('Loading the dataset…');
  const sql = await db.connect();
  const load = await loadDataset(sql, size, log).finally(() => sql.close());
  const loadMs = load.steps.reduce((a, s) => a + s.ms, 0);
  notes.push(
    `Dataset loaded in ${(loadMs / 1000).toFixed(1)} s (${load.steps.map((s) => `${s.step} ${Math.round(s.ms)} ms`).join(', ')}); ` +
      `events in table ${load.eventsInTable}, event_counts says ${load.eventCount} (exact).`,
  );

  const rows: Row[] = [];
  if (scenarios.includes('startup')) {
    log('Scenario startup…');
    rows.push(...(await scenario.startup({ db, restarts: int('restarts', 1), log } as scenario.Context)));
  }
  if (scenarios.includes('rss')) {
    log('Scenario rss…');
    rows.push(...(await scenario.idleRss({ db } as scenario.Context)));
  }
  const load_ = scenarios.filter((s) => s === 'create' || s === 'get' || s === 'events');
  const serve = scenarios.filter((s): s is (typeof SERVING)[number] =>
    (SERVING as readonly string[]).includes(s),
  );
  // The client scenario inserts its token through the bench's own connection and counts
  // transactions in pg_stat_database: on PGlite the service holds the data directory alone.
  if (engine === 'pglite' && serve.includes('client')) {
    log('Scenario client skipped: it needs --engine postgres (the compare measures PGlite client API).');
    serve.splice(serve.indexOf('client'), 1);
  }
  let bare: LoadFigures | undefined;
  const bareFigures = async () => {
    if (!bare) {
      log(`Baseline: bare Fastify GET, ${connections} connections, ${durationS} s…`);
      bare = await scenario.measureBare(connections, durationS);
    }
    return bare;
  };
  const servingRows: Row[] = [];
  // Before the create scenario: the flags it adds would change the evaluated set.
  if (serve.length > 0) {
    const sctx: serving.ServingContext = {
      db,
      connections,
      durationS,
      flags: size.flags,
      bare: serve.includes('client') ? await bareFigures() : ({} as LoadFigures),
      playgroundRuns: int('playground-runs', 1),
      log,
    };
    if (serve.includes('playground')) {
      log('Scenario playground…');
      servingRows.push(...(await serving.playground(sctx)));
    }
    if (serve.includes('client')) {
      log('Scenario client…');
      servingRows.push(...(await serving.clientFeatures(sctx)));
    }
  }
  if (load_.length > 0) {
    const bareN = await bareFigures();
    const bare1 = load_.includes('create') ? await scenario.measureBare(1, durationS) : bareN;
    const service = await startService(db.target);
    const ctx: scenario.Context = {
      db,
      connections,
      durationS,
      projects: size.projects,
      flags: size.flags,
      events: size.events,
      restarts: 0,
      service,
      bare: bareN,
      bare1,
      log,
    };
    try {
      // Reads before create, so the flags created under load do not change what reads return.
      if (load_.includes('get')) rows.push(...(await scenario.getFlag(ctx)));
      if (load_.includes('events')) rows.push(...(await scenario.events(ctx)));
      if (load_.includes('create')) rows.push(...(await scenario.createFlag(ctx)));
      rows.push({
        scenario: 'RSS after the load scenarios',
        figure: 'VmRSS',
        value: rssMb(service.pid),
        unit: 'MB',
        note: 'for information: the service process after serving the runs above',
      });
    } finally {
      await stopChild(service);
    }
  }
  const base = {
    engine,
    date: new Date().toISOString().replace('T', ' ').slice(0, 16),
    args: process.argv.slice(2).join(' '),
    dataset: `${size.projects} projects × 2 environments, ${size.flags} flags (${size.strategiesPerEnv} strategies per environment with 2 constraints and 2 variants each, flag variants, a segment on every first strategy), ${size.segments} segments, ${size.tags} tags (2 per flag), ${size.events} events`,
  };
  const loadNote = `Load runs: autocannon in the runner process, ${connections} connections, ${durationS} s after a 2 s warm-up; the service and the load generator share the machine's cores.`;
  return {
    results: { ...base, rows, notes: [loadNote, ...notes] },
    serving: {
      ...base,
      section: `${engine}-serving`,
      title: `${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}: evaluation serving (advanced playground, client API)`,
      rows: servingRows,
      notes: [loadNote, ...notes],
    },
  };
}

let db: BenchDatabase | undefined;
const cleanup = async () => {
  await stopAll();
  await db?.dispose();
};
process.on('SIGINT', () => void cleanup().finally(() => process.exit(130)));
try {
  db = await createDatabase(engine);
  const { results, serving: served } = await main(db);
  // Each section is rewritten only by a run that produced rows for it.
  for (const r of [results, served].filter((x) => x.rows.length > 0)) {
    console.log('');
    printTable(r.rows);
    if (!values['no-write']) {
      writeResults(String(values.results), r);
      console.log(`\nWritten to ${values.results} (section ${r.section ?? r.engine})`);
    }
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
