/**
 * The frontend API (issue 14): `GET /api/frontend` for one context on the generated 1,000 flags,
 * next to a bare Fastify route measured in the same run (target: ≥ 50 % of its req/s). For a large
 * answer the bare route sends the same bytes (the same encoding): no route moves 74 KB at the rate
 * of 27 bytes, and the target is about the service's own cost per request; the ratio to the
 * small-JSON route is printed too. Also, for
 * information: a new context on every request (nothing reused: the whole evaluation each time),
 * the 304 path, and on PostgreSQL the database transactions per request (the answer comes from the
 * in-memory snapshot: none expected beyond the background revision poll).
 *   npx tsx bench/frontend.ts --engine postgres --flags 1000 --duration 10
 *   npm run build && BENCH_DIST=1 npx tsx bench/frontend.ts
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBare } from './lib/baseline.js';
import { loadDataset } from './lib/dataset.js';
import { type BenchDatabase, createDatabase, type Sql, scratchCleanup } from './lib/db.js';
import { type LoadFigures, measure, measureNodeHttp } from './lib/measure.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';
import { type Child, startService, stopAll, stopChild } from './lib/service.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const engine = values.engine;
if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine must be postgres or pglite');
const flags = Number(values.flags);
const connections = Number(values.connections);
const durationS = Number(values.duration);
const rounds = Number(values.rounds);
const log = (m: string) => console.log(m);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SECRET = '*:development.bench-frontend-token-0123456789abcdef';
/**
 * Browser contexts as unleash-proxy-client sends them (appName, environment, sessionId, userId).
 * In development the bench drops the userId constraint of every flag's second strategy, which
 * keeps `appName STR_STARTS_WITH web/ios` and its 50 % rollout: `web` gets about half of the
 * enabled flags (a large answer, with strategy variants), `android` none (a small answer).
 */
const SMALL = '?appName=android&environment=default&sessionId=bench-session-1&userId=u1';
const LARGE = '?appName=web&environment=default&sessionId=bench-session-1&userId=u1';

async function xacts(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(row?.n);
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
    `UPDATE feature_strategies SET constraints = constraints - 0
     WHERE environment = 'development' AND sort_order = 1 AND feature_name LIKE 'bench-flag-%'`,
  );
  await sql.query(
    `INSERT INTO api_tokens (secret_hash, token_name, type, environment, projects, display_prefix)
     VALUES ($1, 'bench-frontend', 'frontend', 'development', '{*}', 'bench')`,
    [createHash('sha256').update(SECRET, 'utf8').digest('hex')],
  );
  // PGlite: one process at a time on the data directory.
  if (engine === 'pglite') await sql.close();
  let service: Child | undefined;
  let bare: Child | undefined;
  try {
    service = await startService(db.target);
    bare = await startBare();
    const url = `http://127.0.0.1:${service.port}/api/frontend`;
    const headers = { authorization: SECRET };
    const probe = async (query: string, gzip = false) => {
      const res = await fetch(url + query, { headers });
      if (res.status !== 200) throw new Error(`frontend API answered ${res.status}: ${await res.text()}`);
      const text = await res.text();
      const toggles = (JSON.parse(text) as { toggles: unknown[] }).toggles.length;
      const etag = res.headers.get('etag') ?? '';
      // The bytes on the wire: the compressed length when gzip is asked for (fetch decompresses).
      let wire = Buffer.byteLength(text);
      if (gzip) {
        const zipped = await fetch(url + query, { headers: { ...headers, 'accept-encoding': 'gzip' } });
        wire = Number(zipped.headers.get('content-length') ?? wire);
        await zipped.arrayBuffer();
      }
      log(
        `  ${query}${gzip ? ' (gzip)' : ''}: ${toggles} enabled flags, ${text.length} bytes, ${wire} on the wire`,
      );
      return { query, toggles, bytes: text.length, wire, etag, gzip };
    };
    /** A bare Fastify route sending the same bytes as this context's answer (same encoding). */
    const sameBytes = (c: { bytes: number; wire: number; gzip: boolean }) =>
      c.bytes < 1024
        ? `http://127.0.0.1:${bare?.port}/bare`
        : c.gzip
          ? `http://127.0.0.1:${bare?.port}/bare/gzip/${c.wire}`
          : `http://127.0.0.1:${bare?.port}/bare/blob/${c.bytes}`;
    // The large answer also as browsers ask for it (Accept-Encoding: gzip): a kept answer goes
    // compressed, compressed once.
    const contexts = [await probe(SMALL), await probe(LARGE), await probe(LARGE, true)];
    for (const c of contexts.slice(0, 2)) {
      notes.push(
        `Context \`${c.query.slice(1)}\` (as unleash-proxy-client sends it): ${c.toggles} of ${flags} flags enabled for it, a ${c.bytes}-byte answer.`,
      );
    }
    const settings = { connections, durationS };
    let idle: { rate: number } | undefined;
    if (engine === 'postgres') {
      // Background transactions while idle (revision poll; stats reach pg_stat_database within ~10 s).
      await sleep(11_000);
      const t0 = performance.now();
      const c0 = await xacts(sql);
      await sleep((durationS + 4) * 1000);
      idle = { rate: (await xacts(sql)) - c0 - 1 };
      idle.rate /= (performance.now() - t0) / 1000;
    }
    const loadStart = performance.now();
    const c1 = engine === 'postgres' ? await xacts(sql) : 0;
    // The bare route and the frontend API in interleaved rounds: other work on the machine moves
    // them alike; the median round (by the ratio of the large answer) is reported.
    type Round = { bare: LoadFigures; same: LoadFigures; answer: LoadFigures }[];
    const done: Round[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`Round ${round}/${rounds}: for each context, bare Fastify GET /bare then GET /api/frontend…`);
      const pairs: Round = [];
      for (const c of contexts) {
        const bareRound = await measure({ url: `http://127.0.0.1:${bare.port}/bare`, ...settings });
        const same = c.bytes < 1024 ? bareRound : await measure({ url: sameBytes(c), ...settings });
        const sent = c.gzip ? { ...headers, 'accept-encoding': 'gzip' } : headers;
        pairs.push({
          bare: bareRound,
          same,
          answer: await measure({ url: url + c.query, headers: sent, ...settings }),
        });
      }
      log(
        `  ${pairs.map((p) => `bare ${p.bare.rps.toFixed(0)}, same bytes ${p.same.rps.toFixed(0)}, frontend ${p.answer.rps.toFixed(0)} req/s`).join('; ')}`,
      );
      done.push(pairs);
    }
    /** The target's ratio: to the bare route sending the same bytes in the same round. */
    const ratio = (r: Round, i: number) =>
      (r[i] as Round[number]).answer.rps / (r[i] as Round[number]).same.rps;
    const smallRatio = (r: Round, i: number) =>
      (r[i] as Round[number]).answer.rps / (r[i] as Round[number]).bare.rps;
    /** Per context, the round with the median ratio. */
    const median = contexts.map((_, i) => {
      const sorted = [...done].sort((a, b) => ratio(a, i) - ratio(b, i));
      return (sorted[Math.floor(sorted.length / 2)] as Round)[i] as Round[number];
    });
    notes.push(
      `${rounds} rounds; in each, per context, the bare route (small JSON), the bare route sending the same bytes (large answers), then the frontend API (each ${durationS} s after a 2 s warm-up); ratios to the same-bytes route per round ${done
        .map((r) => contexts.map((_, i) => ratio(r, i).toFixed(2)).join(' / '))
        .join('; ')}; to the small-JSON route ${done
        .map((r) => contexts.map((_, i) => smallRatio(r, i).toFixed(2)).join(' / '))
        .join(
          '; ',
        )} (small / large / large with gzip); the table shows each context's median round by the first ratio.`,
    );
    log('GET /api/frontend, a new context on every request…');
    let n = 0;
    const fresh = await measure({
      url: url + LARGE,
      headers,
      path: () => {
        n++;
        return `/api/frontend?appName=web&environment=default&sessionId=s${n}&userId=u${12 + (n % 6)}`;
      },
      ...settings,
    });
    log('GET /api/frontend with If-None-Match (304), Node http client…');
    const large = contexts[1] as (typeof contexts)[number];
    const notModified = await measureNodeHttp({
      url: url + large.query,
      headers: { ...headers, 'if-none-match': large.etag },
      ...settings,
    });
    const bareNode = await measureNodeHttp({ url: `http://127.0.0.1:${bare.port}/bare`, ...settings });
    const requests = [...done.flatMap((r) => r.map((p) => p.answer)), fresh, notModified].reduce(
      (a, f) => a + f.requests + (f.warmupRequests ?? 0),
      0,
    );

    const status = (f: LoadFigures, want: number) =>
      f.errors > 0 || (f.statuses?.[want] ?? 0) !== f.requests
        ? `${f.errors} errors, statuses ${JSON.stringify(f.statuses)} of ${f.requests}`
        : `${f.requests} requests, all ${want}`;
    const name = `GET /api/frontend, ${flags} flags`;
    const rows: Row[] = contexts.flatMap((c, i) => {
      const { answer: f, bare: small, same: base } = median[i] as Round[number];
      const scenario = `${name}, one context, ${c.toggles} enabled (${(c.bytes / 1024).toFixed(1)} KB${c.gzip ? `, gzip accepted: ${(c.wire / 1024).toFixed(1)} KB sent` : ''})`;
      const large = c.bytes >= 1024;
      return [
        {
          scenario,
          figure: 'throughput',
          value: f.rps,
          baseline: base.rps,
          unit: 'req/s',
          lowerIsBetter: false,
          note: status(f, 200),
        },
        {
          scenario,
          figure: 'throughput / bare route',
          value: f.rps / base.rps,
          unit: '×',
          target: 0.5,
          lowerIsBetter: false,
          note: large
            ? `baseline: bare Fastify sending the same ${c.wire} bytes${c.gzip ? ' (gzip-encoded)' : ''}, same autocannon settings, same round`
            : 'baseline: bare Fastify GET /bare (small JSON), same autocannon settings, same round',
        },
        ...(large
          ? [
              {
                scenario,
                figure: 'throughput / bare route (small JSON)',
                value: f.rps / small.rps,
                unit: '×',
                lowerIsBetter: false,
                note: 'for information: moving the answer costs what it costs; bare GET /bare returns 27 bytes',
              } satisfies Row,
            ]
          : []),
        { scenario, figure: 'p50 latency', value: f.p50, baseline: base.p50, unit: 'ms' },
        { scenario, figure: 'p99 latency', value: f.p99, baseline: base.p99, unit: 'ms' },
      ] satisfies Row[];
    });
    rows.push(
      {
        scenario: `${name}, a new context per request`,
        figure: 'throughput',
        value: fresh.rps,
        baseline: (median[1] as Round[number]).bare.rps,
        unit: 'req/s',
        lowerIsBetter: false,
        note: `${status(fresh, 200)}; every answer evaluated (nothing reused), a unique sessionId each, userId u12..u17; for information`,
      },
      { scenario: `${name}, a new context per request`, figure: 'p50 latency', value: fresh.p50, unit: 'ms' },
      {
        scenario: `${name}, 304 (If-None-Match)`,
        figure: 'throughput',
        value: notModified.rps,
        baseline: bareNode.rps,
        unit: 'req/s',
        lowerIsBetter: false,
        note: `${status(notModified, 304)}; large context; Node http client for both (see bench/README.md on autocannon and 304)`,
      },
    );
    if (engine === 'postgres' && idle) {
      await sleep(11_000);
      const c2 = await xacts(sql);
      const windowS = (performance.now() - loadStart) / 1000;
      const background = idle.rate * windowS;
      rows.push({
        scenario: `${name}, database work`,
        figure: 'transactions per 1,000 requests',
        value: ((c2 - c1 - 1 - background) / requests) * 1000,
        unit: '',
        note: `pg_stat_database: ${c2 - c1 - 1} transactions in the ${windowS.toFixed(0)} s window for ${requests} frontend requests, minus the idle rate ${idle.rate.toFixed(2)}/s (${background.toFixed(0)} expected)`,
      });
    }
    return { rows, notes };
  } finally {
    if (bare) await stopChild(bare);
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
  if (!values['no-write']) {
    writeSection(values.results, `frontend-${engine}`, [
      `### Frontend API, ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
      '',
      `Run ${new Date().toISOString().slice(0, 10)} on ${machineFacts()}${process.env.BENCH_DIST === '1' ? ', service from dist/main.js' : ', service under tsx'}.`,
      `Command: \`npx tsx bench/frontend.ts --engine ${engine} --flags ${flags} --connections ${connections} --duration ${durationS} --rounds ${rounds}\`.`,
      `Dataset: bench/lib/dataset.ts with ${flags} flags (909 per 1,000 on in development, 2 flexibleRollout strategies with 2 constraints each, segments); a frontend token for development, all projects.`,
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
