/**
 * Flag search (GET /api/admin/search/features) on 100,000 flags: every filter and sort, a page of
 * 50, p50/p95 and req/s next to a bare Fastify route in the same run; EXPLAIN ANALYZE of the three
 * slowest. See bench/README.md, "Search".
 *   npx tsx bench/search.ts --engine postgres
 *   npx tsx bench/search.ts --engine pglite --duration 3
 *   npx tsx bench/search.ts --only 'environment|deep'   (rerun some cases; nothing written)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { compileSearch, parseSearch } from '../src/features/search/index.js';
import { startBare } from './lib/baseline.js';
import { PG_ADMIN_URL } from './lib/db.js';
import { type LoadFigures, measure, percentile } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '100000' },
    projects: { type: 'string', default: '20' },
    segments: { type: 'string', default: '100' },
    connections: { type: 'string', default: '1' },
    duration: { type: 'string', default: '5' },
    'no-write': { type: 'boolean', default: false },
    /** Only the cases whose name matches this regular expression (to rerun slow ones; implies --no-write). */
    only: { type: 'string' },
  },
});
const engine = args.engine === 'pglite' ? 'pglite' : 'postgres';
const F = Number(args.flags);
const P = Number(args.projects);
const G = Number(args.segments);
const CONNECTIONS = Number(args.connections);
const DURATION = Number(args.duration);
const log = (m: string) => console.log(m);

interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** A scratch database; PGlite is opened with pg_trgm, which the search migration needs. */
async function scratch(): Promise<{
  env: Record<string, string>;
  connect: () => Promise<Sql>;
  dispose: () => Promise<void>;
}> {
  if (engine === 'postgres') {
    const name = `flagship_search_${Math.random().toString(16).slice(2, 10)}`;
    const admin = async (text: string) => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(text).finally(() => c.end());
    };
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      env: { DATABASE_URL: url.toString() },
      connect: async (): Promise<Sql> => {
        const c = new pg.Client({ connectionString: url.toString() });
        await c.connect();
        return { query: async (t, p) => (await c.query(t, p)).rows, close: () => c.end() };
      },
      dispose: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'flagship-search-'));
  return {
    env: { DATA_DIR: dir },
    connect: async (): Promise<Sql> => {
      const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm } });
      return {
        query: async (t, p) =>
          p ? (await db.query<any>(t, p)).rows : ((await db.exec(t)).at(-1)?.rows ?? []),
        close: () => db.close(),
      };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

const WORDS = ['checkout', 'payments', 'search', 'onboarding', 'billing', 'profile', 'reports', 'mobile'];

/** 100,000 flags over 20 projects, 3 environments, 5 tags each, segments; set-based SQL. */
function datasetSql(): string[] {
  const words = `(ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}])`;
  return [
    `INSERT INTO environments (name, type, sort_order) VALUES ('staging', 'test', 2) ON CONFLICT DO NOTHING;
     INSERT INTO projects (id, name) SELECT 'bench-p' || i, 'Bench ' || i FROM generate_series(1, ${P}) i;
     INSERT INTO project_environments (project_id, environment_name)
       SELECT p.id, e.name FROM projects p CROSS JOIN environments e WHERE p.id LIKE 'bench-p%';`,
    // Two years of flags; 2 % archived, 5 % stale, 5 % potentially stale.
    `INSERT INTO features (name, project, type, description, stale, potentially_stale, created_at,
        created_by_user_id, created_by_name, archived_at)
     SELECT 'bench-flag-' || i, 'bench-p' || (1 + i % ${P}),
       (ARRAY['release','experiment','operational','kill-switch','permission'])[1 + i % 5],
       'Flag ' || i || ' for ' || ${words}[1 + (i / 7) % ${WORDS.length}] || ' team ' || (i % 97),
       i % 20 = 1, i % 20 = 2, timestamptz '2024-01-01' + (i * interval '10 minutes'),
       CASE WHEN i % 10 = 0 THEN -42 ELSE 1 + i % 50 END, 'bench',
       CASE WHEN i % 50 = 7 THEN timestamptz '2026-01-01' END
     FROM generate_series(1, ${F}) i;`,
    `INSERT INTO feature_environments (feature_name, environment, enabled, last_seen_at)
     SELECT f.name, pe.environment_name, (hashtext(f.name || pe.environment_name) % 3) = 0,
       CASE WHEN hashtext(f.name || pe.environment_name || 'seen') % 10 < 3
         THEN timestamptz '2026-01-01' + (abs(hashtext(f.name || pe.environment_name)) % 1000000) * interval '1 second' END
     FROM features f JOIN project_environments pe ON pe.project_id = f.project WHERE f.created_by_name = 'bench';`,
    // As metrics keep it (markFlagsSeen): the flag's last-seen time is the latest of its environments.
    `UPDATE features f SET last_seen_at = s.seen
     FROM (SELECT feature_name, max(last_seen_at) AS seen FROM feature_environments
           WHERE last_seen_at IS NOT NULL GROUP BY feature_name) s
     WHERE s.feature_name = f.name AND (f.last_seen_at IS NULL OR f.last_seen_at < s.seen);`,
    // Lifecycle rows in bulk without the per-row trigger, then the current stage set-based, as the
    // trigger would leave it (migrations/0011_search_columns.sql).
    `SET session_replication_role = replica;
     INSERT INTO feature_lifecycles (feature_name, stage, created_at)
       SELECT name, 'initial', created_at FROM features WHERE created_by_name = 'bench';
     INSERT INTO feature_lifecycles (feature_name, stage, created_at)
       SELECT name, 'pre-live', created_at + interval '1 day' FROM features WHERE created_by_name = 'bench' AND length(name) % 3 <> 0;
     INSERT INTO feature_lifecycles (feature_name, stage, created_at)
       SELECT name, 'live', created_at + interval '2 days' FROM features WHERE created_by_name = 'bench' AND length(name) % 3 = 1;
     INSERT INTO feature_lifecycles (feature_name, stage, created_at)
       SELECT name, 'archived', archived_at FROM features WHERE archived_at IS NOT NULL;
     SET session_replication_role = origin;
     UPDATE features f SET lifecycle_stage = s.stage FROM (
       SELECT DISTINCT ON (feature_name) feature_name, stage FROM feature_lifecycles
       ORDER BY feature_name, created_at DESC,
         array_position(array['initial','pre-live','live','completed','archived']::text[], stage) DESC) s
     WHERE s.feature_name = f.name;`,
    `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, sort_order, disabled)
     SELECT md5(fe.feature_name || fe.environment), fe.feature_name, fe.environment, 'default', 0,
       hashtext(fe.feature_name) % 7 = 0
     FROM feature_environments fe WHERE fe.enabled OR hashtext(fe.feature_name) % 4 = 0;
     INSERT INTO segments (name, constraints) SELECT 'bench-segment-' || i, '[]' FROM generate_series(1, ${G}) i;
     INSERT INTO feature_strategy_segment (feature_strategy_id, segment_id)
     SELECT fs.id, sg.id FROM feature_strategies fs
       JOIN segments sg ON sg.name = 'bench-segment-' || (1 + abs(hashtext(fs.id)) % ${G})
     WHERE abs(hashtext(fs.id)) % 5 = 0;`,
    // 5 tags per flag: team-N, area-N, plus three of 200 generic ones.
    `INSERT INTO tags (type, value)
       SELECT 'simple', v FROM (SELECT 'team-' || i AS v FROM generate_series(0, 49) i
         UNION ALL SELECT 'area-' || i FROM generate_series(0, 19) i
         UNION ALL SELECT 'tag-' || i FROM generate_series(0, 199) i) x;
     INSERT INTO feature_tag (feature_name, tag_type, tag_value)
     SELECT 'bench-flag-' || i, 'simple', v FROM generate_series(1, ${F}) i,
       LATERAL (VALUES ('team-' || (i % 50)), ('area-' || (i % 20)), ('tag-' || (i % 200)),
         ('tag-' || ((i * 7 + 1) % 200)), ('tag-' || ((i * 13 + 2) % 200))) t(v)
     ON CONFLICT DO NOTHING;`,
    `INSERT INTO client_metrics_env (feature_name, app_name, environment, timestamp, yes, no)
     SELECT fe.feature_name, 'bench-app', fe.environment, date_trunc('hour', now()), 10, 3
     FROM feature_environments fe WHERE fe.last_seen_at IS NOT NULL;`,
    // As autovacuum leaves the tables after a bulk load: statistics, and the visibility map set, so
    // index-only scans (counts, deep pages) read no heap pages.
    'VACUUM ANALYZE',
  ];
}

/** The cases: each filter and each sort, a page of 50 (the default limit). */
const CASES: [string, string][] = [
  ['no filter (createdAt asc)', ''],
  ['query: description word', 'query=onboarding%20team%2042'],
  ['query: name', 'query=bench-flag-4242'],
  ['query: tag', 'query=simple:team-7'],
  ['query: 2 terms', 'query=bench-flag-777,billing%20team%201'],
  ['project IS', 'project=IS:bench-p3'],
  ['project IS_NONE_OF', 'project=IS_NONE_OF:bench-p1,bench-p2'],
  ['type IS', 'type=IS:experiment'],
  ['state stale', 'state=IS:stale'],
  ['state potentially-stale', 'state=IS:potentially-stale'],
  ['lifecycle IS live', 'lifecycle=IS:live'],
  ['lifecycle IS_NOT initial', 'lifecycle=IS_NOT:initial'],
  ['createdBy IS', 'createdBy=IS:7'],
  ['tag INCLUDE', 'tag=INCLUDE:simple:team-7'],
  ['tag INCLUDE_ALL_OF', 'tag=INCLUDE_ALL_OF:simple:team-7,simple:area-7'],
  ['tag DO_NOT_INCLUDE', 'tag=DO_NOT_INCLUDE:simple:team-7'],
  ['segment INCLUDE', 'segment=INCLUDE:bench-segment-3'],
  ['segment EXCLUDE_IF_ANY_OF', 'segment=EXCLUDE_IF_ANY_OF:bench-segment-3'],
  ['status', 'status=production:enabled'],
  ['createdAt IS_BEFORE', 'createdAt=IS_BEFORE:2024-06-01'],
  ['lastSeenAt IS_ON_OR_AFTER', 'lastSeenAt=IS_ON_OR_AFTER:2026-01-10'],
  ['archived', 'archived=IS:true'],
  ['combined', 'project=IS:bench-p3&type=IS:release&tag=INCLUDE:simple:area-3&state=IS:active'],
  ['sort name asc', 'sortBy=name'],
  ['sort name desc', 'sortBy=name&sortOrder=desc'],
  ['sort createdAt desc', 'sortBy=createdAt&sortOrder=desc'],
  ['sort type desc', 'sortBy=type&sortOrder=desc'],
  ['sort stale desc', 'sortBy=stale&sortOrder=desc'],
  ['sort project asc', 'sortBy=project'],
  ['sort lastSeenAt asc', 'sortBy=lastSeenAt'],
  ['sort lastSeenAt desc', 'sortBy=lastSeenAt&sortOrder=desc'],
  ['sort environment asc', 'sortBy=environment:production'],
  ['sort environment desc', 'sortBy=environment:production&sortOrder=desc'],
  ['deep page (offset 50,000)', 'offset=50000'],
];

interface Result {
  name: string;
  qs: string;
  total: number;
  p50: number;
  p95: number;
  rps: number;
  non2xx: number;
}

async function main() {
  const db = await scratch();
  const children: Child[] = [];
  try {
    log(
      `search bench: ${engine}, ${F} flags, ${P} projects, ${CONNECTIONS} connection(s), ${DURATION} s per case`,
    );
    // Migrate with the service, stop it, load the dataset, start it again. The potential-staleness
    // job is off: it would turn half of the two-year-old flags potentially stale (53,000 updates and
    // events) while the cases run, and the dataset has its own 5 %.
    const env = { ...db.env, STALENESS_CHECK_SECONDS: '0' };
    await stopChild(await startService({ engine, env }));
    const sql = await db.connect();
    const t0 = performance.now();
    for (const statement of datasetSql()) await sql.query(statement);
    const [facts] = await sql.query<{ flags: number; tags: number; fe: number }>(
      `SELECT (SELECT count(*) FROM features)::int AS flags, (SELECT count(*) FROM feature_tag)::int AS tags,
        (SELECT count(*) FROM feature_environments)::int AS fe`,
    );
    log(`loaded in ${Math.round(performance.now() - t0)} ms: ${JSON.stringify(facts)}`);
    await sql.close();

    const bare = await startBare();
    children.push(bare);
    const bareFigures = await measure(
      { url: `http://127.0.0.1:${bare.port}/bare`, connections: CONNECTIONS, durationS: DURATION },
      1,
    );
    await stopChild(bare);
    log(`bare route: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms`);

    const service = await startService({ engine, env });
    children.push(service);
    const base = `http://127.0.0.1:${service.port}/api/admin/search/features`;
    const results: Result[] = [];
    const only = args.only === undefined ? undefined : new RegExp(args.only, 'i');
    for (const [name, qs] of CASES.filter(([name]) => !only || only.test(name))) {
      const url = `${base}${qs ? `?${qs}` : ''}`;
      const first = await fetch(url, { headers: { authorization: ADMIN_TOKEN } });
      const body = (await first.json()) as { total: number; features: unknown[] };
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${JSON.stringify(body)}`);
      const f: LoadFigures = await measure(
        { url, headers: { authorization: ADMIN_TOKEN }, connections: CONNECTIONS, durationS: DURATION },
        1,
      );
      const r = {
        name,
        qs,
        total: body.total,
        p50: f.p50,
        p95: percentile(f.samples ?? [], 95),
        rps: f.rps,
        non2xx: f.non2xx,
      };
      results.push(r);
      log(
        `${name.padEnd(30)} total ${String(r.total).padStart(6)}  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  ${Math.round(r.rps)} req/s`,
      );
    }
    await stopChild(service);

    // EXPLAIN ANALYZE of the three slowest (by p95), on the same database, the service stopped.
    const slowest = [...results].sort((a, b) => b.p95 - a.p95).slice(0, 3);
    const explain = await db.connect();
    const plans: string[] = [];
    for (const r of slowest) {
      const query = Object.fromEntries(new URLSearchParams(r.qs)) as Record<string, string>;
      const compiled = compileSearch(parseSearch(query), {
        userId: null,
        metricsSince: new Date(Date.now() - 3_600_000),
      });
      const rows = await explain.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${compiled.sql}`,
        [...compiled.parameters],
      );
      plans.push(
        `#### ${r.name} (\`${r.qs || 'no parameters'}\`, p95 ${r.p95.toFixed(1)} ms)`,
        '',
        '```text',
      );
      plans.push(...rows.map((row) => row['QUERY PLAN']), '```', '');
    }
    await explain.close();
    console.log(plans.join('\n'));

    const target = engine === 'postgres' ? 50 : 200;
    const worst = Math.max(...results.map((r) => r.p95));
    const lines = [
      `### Search, ${engine} (${new Date().toISOString().slice(0, 10)})`,
      '',
      `${machineFacts()}. ${F.toLocaleString('en')} flags over ${P} projects, 3 environments, 5 tags per flag, ${G} segments; `,
      `one page of 50 per request, ${CONNECTIONS} connection(s), ${DURATION} s per case after 1 s warm-up (autocannon). `,
      `Target p95 ≤ ${target} ms: worst p95 ${worst.toFixed(1)} ms (${worst <= target ? 'met' : 'NOT met'}). `,
      `Bare Fastify route in the same run: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms.`,
      '',
      '| case | parameters | total | p50 ms | p95 ms | req/s | % of bare |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...results.map(
        (r) =>
          `| ${r.name} | \`${r.qs || '-'}\` | ${r.total} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${Math.round(r.rps)} | ${((100 * r.rps) / bareFigures.rps).toFixed(1)} % |`,
      ),
      '',
      'Query plans of the three slowest (EXPLAIN (ANALYZE, BUFFERS), the service stopped):',
      '',
      ...plans,
    ];
    if (!args['no-write'] && !only) writeSection(join(ROOT, 'bench/RESULTS.md'), `search-${engine}`, lines);
  } finally {
    for (const c of children) await stopChild(c).catch(() => {});
    await stopAll();
    await db.dispose();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
