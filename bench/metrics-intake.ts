/**
 * Metrics intake (issue 14): 1,000 SDK instances posting `/api/client/metrics` every 15 s, sent at
 * that rate (open loop: each request leaves at its scheduled time whether or not earlier ones were
 * answered) for `--duration` seconds. Reports whether the service keeps up (latency from the
 * scheduled time, p50/p99; requests still unanswered when the window ends), whether every count
 * arrived (the sum in `client_metrics_env` after the last batch), and the database transactions
 * per second on PostgreSQL (`pg_stat_database`, minus the idle rate measured before: reads
 * included, so an upper bound for the write transactions).
 *   npx tsx bench/metrics-intake.ts --engine postgres --instances 1000 --interval 15 --duration 30
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { flagName, loadDataset } from './lib/dataset.js';
import { type BenchDatabase, createDatabase, type Sql, scratchCleanup } from './lib/db.js';
import { percentile } from './lib/measure.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';
import { type Child, startService, stopAll, stopChild } from './lib/service.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    instances: { type: 'string', default: '1000' },
    apps: { type: 'string', default: '50' },
    interval: { type: 'string', default: '15' },
    duration: { type: 'string', default: '30' },
    flags: { type: 'string', default: '1000' },
    'flags-per-report': { type: 'string', default: '50' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const instances = Number(values.instances);
const apps = Number(values.apps);
const intervalS = Number(values.interval);
const durationS = Number(values.duration);
const flags = Number(values.flags);
const perReport = Number(values['flags-per-report']);
const rate = instances / intervalS;
const log = (m: string) => console.log(m);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SECRET = '*:development.bench-metrics-token-0123456789abcdef';

/**
 * Transactions of the bench database (pg_stat_database, per database: other databases on the
 * server do not count; transaction ids would, being server-wide), and the autovacuum and
 * autoanalyze rounds among them (each its own transaction, not the service's).
 */
async function counters(sql: Sql): Promise<{ xacts: number; maintenance: number; xid: number }> {
  const [row] = await sql.query<{ xacts: string; maintenance: string; xid: string }>(
    `SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS xacts,
      (SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_all_tables) AS maintenance,
      pg_snapshot_xmax(pg_current_snapshot())::text AS xid`,
  );
  return { xacts: Number(row?.xacts), maintenance: Number(row?.maintenance), xid: Number(row?.xid) };
}

/** Instance i's report: `perReport` flags starting at its own offset, a variant on every fifth. */
function report(i: number) {
  const toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }> = {};
  for (let k = 0; k < perReport; k++) {
    const flag = flagName(1 + ((i * 7 + k) % flags));
    toggles[flag] = k % 5 === 0 ? { yes: 3, no: 1, variants: { blue: 2, red: 1 } } : { yes: 3, no: 1 };
  }
  return toggles;
}

async function run(db: BenchDatabase): Promise<{ rows: Row[]; notes: string[] }> {
  const notes: string[] = [];
  const first = await startService(db.target);
  await stopChild(first);
  log(`Loading ${flags} flags…`);
  const sql = await db.connect();
  await loadDataset(
    sql,
    { projects: 10, flags, strategiesPerEnv: 2, segments: 50, tags: 100, events: 1000 },
    log,
  );
  await sql.query(
    `INSERT INTO api_tokens (secret_hash, token_name, type, environment, projects, display_prefix)
     VALUES ($1, 'bench-metrics', 'client', 'development', '{*}', 'bench')`,
    [createHash('sha256').update(SECRET, 'utf8').digest('hex')],
  );
  if (engine === 'pglite') await sql.close();
  let service: Child | undefined;
  try {
    service = await startService(db.target);
    const url = `http://127.0.0.1:${service.port}/api/client/metrics`;
    const bodies = Array.from({ length: instances }, (_, i) => {
      const start = new Date().toISOString();
      return JSON.stringify({
        appName: `bench-app-${i % apps}`,
        instanceId: `bench-instance-${i}`,
        bucket: { start, stop: start, toggles: report(i) },
      });
    });
    const send = (i: number) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: SECRET, 'content-type': 'application/json' },
        body: bodies[i % instances] as string,
      });
    // Warm-up (connections, JIT): one report per app, not counted below.
    for (let a = 0; a < apps; a++) await (await send(a)).arrayBuffer();
    await sleep(3000);

    let idleRate = 0;
    let idleWrites = 0;
    let queries = 0;
    let before = { xacts: 0, maintenance: 0, xid: 0 };
    if (engine === 'postgres') {
      // pg_stat_database sees a backend's transactions within ~10 s of their commit.
      await sleep(11_000);
      const i0 = await counters(sql);
      const t0 = performance.now();
      await sleep(10_000);
      const i1 = await counters(sql);
      const idleS = (performance.now() - t0) / 1000;
      idleRate = (i1.xacts - i0.xacts - 1 - (i1.maintenance - i0.maintenance)) / idleS;
      idleWrites = (i1.xid - i0.xid) / idleS;
      before = i1;
    }

    const total = Math.round(rate * durationS);
    log(`Sending ${total} reports at ${rate.toFixed(1)}/s (${instances} instances every ${intervalS} s)…`);
    const latencies: number[] = [];
    const statuses: Record<number, number> = {};
    let errors = 0;
    let answered = 0;
    const started = performance.now();
    const pending: Promise<void>[] = [];
    let maxInFlight = 0;
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      maxInFlight = Math.max(maxInFlight, i - answered);
      pending.push(
        send(i).then(
          async (res) => {
            await res.arrayBuffer();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            latencies.push(performance.now() - due);
            answered++;
          },
          () => {
            errors++;
            answered++;
          },
        ),
      );
    }
    const windowEnd = performance.now();
    const unansweredAtEnd = total - answered;
    await Promise.all(pending);
    const drainMs = performance.now() - windowEnd;
    const sentS = (windowEnd - started) / 1000;
    log(
      `  sent in ${sentS.toFixed(1)} s; ${unansweredAtEnd} unanswered at the end, drained in ${drainMs.toFixed(0)} ms`,
    );

    const rows: Row[] = [];
    const name = `POST /api/client/metrics, ${instances} instances every ${intervalS} s (${rate.toFixed(1)} req/s), ${perReport} flags per report`;
    const ok = (statuses[202] ?? 0) === total && errors === 0;
    rows.push(
      {
        scenario: name,
        figure: 'p50 latency (from the scheduled time)',
        value: percentile(latencies, 50),
        unit: 'ms',
        note: ok
          ? `${total} reports in ${sentS.toFixed(1)} s, all 202`
          : `statuses ${JSON.stringify(statuses)}, ${errors} errors`,
      },
      {
        scenario: name,
        figure: 'p99 latency (from the scheduled time)',
        value: percentile(latencies, 99),
        unit: 'ms',
        note: 'for information: the shared cores decide it (see the load average above)',
      },
      {
        scenario: name,
        figure: 'backlog: reports unanswered when the window ended',
        value: unansweredAtEnd,
        unit: '',
        target: Math.ceil(rate),
        note: `max in flight ${maxInFlight}; the last answered ${drainMs.toFixed(0)} ms after the window; target: at most one second's worth`,
      },
    );

    if (engine === 'postgres') {
      // Warm-up reports plus the window's; the service writes a batch every METRICS_BATCH_MS (5 s).
      const expected = (total + apps) * perReport * 3;
      const stored = async () => {
        queries++;
        return Number(
          (
            await sql.query<{ yes: string }>(
              `SELECT coalesce(sum(yes), 0)::text AS yes FROM client_metrics_env WHERE app_name LIKE 'bench-app-%'`,
            )
          )[0]?.yes,
        );
      };
      const atEnd = await stored();
      let written = atEnd;
      while (written < expected && performance.now() - windowEnd < 30_000) {
        await sleep(250);
        written = await stored();
      }
      const lagS = (performance.now() - windowEnd) / 1000;
      rows.push({
        scenario: name,
        figure: 'all counts stored, seconds after the last report',
        value: written === expected ? lagS : Number.NaN,
        unit: 's',
        note: `${written} of ${expected} yes counts stored (${atEnd} when the last answer came); up to one batch interval expected`,
      });
      await sleep(11_000);
      const after = await counters(sql);
      const windowS = (performance.now() - started) / 1000;
      const background = idleRate * windowS;
      // Less this script's own queries in the window (the counter read and the polls of the sum).
      const vacuums = after.maintenance - before.maintenance;
      const window = after.xacts - before.xacts - 1 - queries - vacuums;
      rows.push({
        scenario: name,
        figure: 'transactions per second above idle (writes and reads)',
        value: (window - background) / sentS,
        unit: '/s',
        target: 1,
        note: `pg_stat_database of the bench database: ${window} in the ${windowS.toFixed(0)} s window (autovacuum and autoanalyze rounds, ${vacuums}, left out) minus the idle rate ${idleRate.toFixed(2)}/s (${background.toFixed(0)}), over the ${sentS.toFixed(0)} s of sending; an upper bound for the write transactions`,
      });
      // Only a transaction that writes is given a transaction id (reads never are): the ids
      // assigned in the window count the write transactions, of the whole server, though.
      const writes = after.xid - before.xid - idleWrites * windowS;
      rows.push({
        scenario: name,
        figure: 'write transactions per second above idle (transaction ids assigned)',
        value: writes / sentS,
        unit: '/s',
        target: 1,
        note: `${after.xid - before.xid} ids in the ${windowS.toFixed(0)} s window minus the idle rate ${idleWrites.toFixed(2)}/s; server-wide, so exact only while nothing else writes to this PostgreSQL server`,
      });
    }
    const failures = (service.output() ?? '').split('\n').filter((l) => /"level":(50|60)/.test(l));
    for (const line of failures.slice(0, 3)) log(`  service error: ${line.slice(0, 600)}`);
    notes.push(`Errors the service logged during the run: ${failures.length}.`);
    notes.push(
      `Open loop: report i leaves at start + i / ${rate.toFixed(2)} s whatever the answers; latency counts from that time, so a service falling behind shows as growing latency and backlog.`,
      `Each instance sends the same report ${(durationS / intervalS).toFixed(1)} times (an SDK's 15 s bucket); ${apps} applications, ${instances / apps} instances each, environment development.`,
    );
    return { rows, notes };
  } finally {
    if (service) await stopChild(service);
    if (engine === 'postgres') await sql.close();
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
  for (const n of notes) log(`- ${n}`);
  if (!values['no-write']) {
    writeSection(values.results, `metrics-intake-${engine}`, [
      `### Metrics intake, ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${machineFacts()}, service under tsx${process.env.BENCH_NOTE ? `; ${process.env.BENCH_NOTE}` : ''}.`,
      `Command: \`npx tsx bench/metrics-intake.ts --engine ${engine} --instances ${instances} --interval ${intervalS} --duration ${durationS}\`.`,
      `Dataset: bench/lib/dataset.ts with ${flags} flags; a client token for development, all projects.`,
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
