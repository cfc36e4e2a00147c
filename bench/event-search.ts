/**
 * Event search (GET /api/admin/search/events, issue 15: "fast on millions of events") on
 * 1,000,000 events: every filter, one page of 50 with the exact total, p50/p99 and req/s next to a
 * bare Fastify route in the same run. Target: p50 ≤ 50 ms per case on PostgreSQL. See
 * bench/README.md, "Event search".
 *   npx tsx bench/event-search.ts                       # PostgreSQL (BENCH_PG_URL), ~2 min
 *   npx tsx bench/event-search.ts --keep                # keep the loaded database (query plans)
 *   npx tsx bench/event-search.ts --reuse <url>         # measure a kept database again, no load
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBare } from './lib/baseline.js';
import { type BenchDatabase, createPostgresDatabase } from './lib/db.js';
import { measure } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    flags: { type: 'string', default: '2000' },
    projects: { type: 'string', default: '20' },
    users: { type: 'string', default: '50' },
    connections: { type: 'string', default: '1' },
    duration: { type: 'string', default: '3' },
    /** Only the cases whose name contains one of these (comma-separated). */
    only: { type: 'string', default: '' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const E = Number(args.events);
const F = Number(args.flags);
const P = Number(args.projects);
const U = Number(args.users);
const CONNECTIONS = Number(args.connections);
const DURATION = Number(args.duration);
const log = (m: string) => console.log(m);

/** 36 event types; `feature-updated` is about one event in eight, the others ~2.4 % each. */
const TYPES = [
  'feature-created',
  'feature-updated',
  'feature-metadata-updated',
  'feature-project-change',
  'feature-archived',
  'feature-revived',
  'feature-deleted',
  'feature-tagged',
  'feature-untagged',
  'feature-stale-on',
  'feature-stale-off',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-strategy-add',
  'feature-strategy-update',
  'feature-strategy-remove',
  'feature-variants-updated',
  'feature-environment-variants-updated',
  'feature-dependency-added',
  'feature-dependency-removed',
  'feature-link-added',
  'feature-link-removed',
  'feature-favorited',
  'feature-unfavorited',
  'feature-potentially-stale-on',
  'strategy-order-changed',
  'segment-created',
  'segment-updated',
  'segment-deleted',
  'project-created',
  'project-updated',
  'tag-created',
  'api-token-created',
  'user-created',
  'environment-created',
  'context-field-updated',
];
const WORDS = ['checkout', 'search', 'billing', 'onboarding', 'payments', 'profile', 'cart', 'inbox'];

/**
 * E events over the last 365 days in id order (newer events have larger ids, as in the service):
 * F flags `<word>-<n>` in P projects `ev-p<n>`, users 1..U (one event in 17 by a token: no user
 * id), an environment on half of them, a small jsonb document naming the flag. The per-row count
 * and notify triggers are skipped (session_replication_role) and `event_counts` gets the number.
 */
function datasetSql(): string[] {
  const types = `ARRAY[${TYPES.map((t) => `'${t}'`).join(',')}]`;
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  const batch = 250_000;
  const statements = [
    `INSERT INTO projects (id, name) SELECT 'ev-p' || i, 'Events ' || i FROM generate_series(1, ${P}) i`,
  ];
  for (let start = 1; start <= E; start += batch) {
    const end = Math.min(E, start + batch - 1);
    statements.push(
      `SET session_replication_role = replica;
       INSERT INTO events (type, created_at, created_by, created_by_user_id, data, tags, feature_name,
         project, environment)
       SELECT CASE WHEN i % 9 = 0 THEN 'feature-updated' ELSE (${types})[1 + (i * 7) % ${TYPES.length}] END,
         now() - interval '365 days' * (${E} - i)::float8 / ${E},
         CASE WHEN i % 17 = 0 THEN 'admin-token' ELSE 'user' || (1 + i % ${U}) || '@example.com' END,
         CASE WHEN i % 17 = 0 THEN NULL ELSE 1 + i % ${U} END,
         jsonb_build_object('name', f.name, 'project', 'ev-p' || (1 + f.n % ${P}),
           'description', 'Change number ' || i || ' of ' || f.name, 'enabled', i % 2 = 0),
         '[]'::jsonb, f.name, 'ev-p' || (1 + f.n % ${P}),
         (ARRAY['development', 'production', NULL, NULL])[1 + i % 4]
       FROM generate_series(${start}, ${end}) i,
         LATERAL (SELECT ((i::bigint * 7919) % ${F})::int AS n) k,
         LATERAL (SELECT k.n, (${words})[1 + k.n % ${WORDS.length}] || '-' || k.n AS name) f;
       SET session_replication_role = origin;
       INSERT INTO event_counts (shard, count) VALUES (pg_backend_pid() % 16, ${end - start + 1})
         ON CONFLICT (shard) DO UPDATE SET count = event_counts.count + EXCLUDED.count;`,
    );
  }
  statements.push('VACUUM ANALYZE events');
  return statements;
}

async function main() {
  const reuse = args.reuse;
  const db: BenchDatabase | undefined = reuse ? undefined : await createPostgresDatabase('flagship_evsearch');
  const target = db?.target ?? { engine: 'postgres' as const, env: { DATABASE_URL: String(reuse) } };
  const children: Child[] = [];
  try {
    log(`event search bench: ${reuse ?? db?.describe}, ${CONNECTIONS} connection(s), ${DURATION} s per case`);
    // The service migrates the empty database (or a kept one to the newest migration), then stops.
    await stopChild(await startService(target));
    const sql = new pg.Client({ connectionString: target.env.DATABASE_URL });
    await sql.connect();
    if (db) {
      const t0 = performance.now();
      for (const statement of datasetSql()) await sql.query(statement);
      log(`loaded in ${Math.round(performance.now() - t0)} ms`);
    }
    const facts = (
      await sql.query<{ n: string; counted: string; newest: Date }>(
        `SELECT count(*) AS n, (SELECT sum(count) FROM event_counts) AS counted, max(created_at) AS newest FROM events`,
      )
    ).rows[0];
    if (!facts || facts.n !== facts.counted)
      throw new Error(`event_counts disagree: ${JSON.stringify(facts)}`);
    const flag = `${WORDS[1]}-1001`;
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const weekEnd = new Date(facts.newest.getTime() - 100 * 86_400_000);
    const weekStart = new Date(weekEnd.getTime() - 6 * 86_400_000);
    await sql.end();
    log(`${Number(facts.n).toLocaleString('en')} events`);
    if (args.keep) {
      log(`kept: ${JSON.stringify(target.env)}`);
      return;
    }

    const bare = await startBare();
    children.push(bare);
    const bareFigures = await measure(
      { url: `http://127.0.0.1:${bare.port}/bare`, connections: CONNECTIONS, durationS: DURATION },
      1,
    );
    await stopChild(bare);
    log(`bare route: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms`);

    const service = await startService(target);
    children.push(service);
    const cases: [string, string][] = [
      ['no filter (first page)', ''],
      ['no filter, page 100', 'offset=4950'],
      ['type', 'type=IS:feature-updated'],
      ['type, rare', 'type=IS:segment-deleted'],
      ['project', 'project=IS:ev-p7'],
      ['feature', `feature=IS:${flag}`],
      ['createdBy', 'createdBy=IS:17'],
      ['environment', 'environment=IS:production'],
      ['one-week window', `from=IS:${day(weekStart)}&to=IS:${day(weekEnd)}`],
      ['query (flag word)', 'query=billing'],
      ['query (one flag)', `query=${flag}`],
      ['query (no match)', 'query=no-such-text'],
      [
        'combined',
        `project=IS:ev-p7&type=IS_ANY_OF:feature-updated,feature-created&createdBy=IS:15&from=IS:${day(new Date(facts.newest.getTime() - 90 * 86_400_000))}`,
      ],
    ];
    const only = args.only ? args.only.split(',') : [];
    const results: { name: string; qs: string; total: number; p50: number; p99: number; rps: number }[] = [];
    for (const [name, qs] of cases) {
      if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
      const url = `http://127.0.0.1:${service.port}/api/admin/search/events${qs ? `?${qs}` : ''}`;
      const first = await fetch(url, { headers: { authorization: ADMIN_TOKEN } });
      const body = (await first.json()) as { total: number; events: unknown[] };
      if (first.status !== 200)
        throw new Error(`${name}: ${first.status} ${JSON.stringify(body).slice(0, 300)}`);
      const f = await measure(
        { url, headers: { authorization: ADMIN_TOKEN }, connections: CONNECTIONS, durationS: DURATION },
        1,
      );
      if (f.non2xx > 0 || f.errors > 0) throw new Error(`${name}: ${f.non2xx} non-2xx, ${f.errors} errors`);
      results.push({ name, qs, total: body.total, p50: f.p50, p99: f.p99, rps: f.rps });
      log(
        `${name.padEnd(24)} total ${String(body.total).padStart(7)}  p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ${Math.round(f.rps)} req/s`,
      );
    }
    await stopChild(service);

    const worst = Math.max(...results.map((r) => r.p50));
    const lines = [
      `### Event search at ${E.toLocaleString('en')} events, PostgreSQL (${new Date().toISOString().slice(0, 10)})`,
      '',
      `${machineFacts()}; the machine was shared and loaded during the run (other test runs), so the `,
      `figures are upper bounds. \`npx tsx bench/event-search.ts\`: ${Number(facts.n).toLocaleString('en')} events (the generated ones and the service's own) `,
      `over 365 days, ${F.toLocaleString('en')} flags in ${P} projects, ${TYPES.length} types (\`feature-updated\` ~1 in 8), `,
      `${U} users (1 in 17 by a token), an environment on half; \`VACUUM ANALYZE\` after the load. One page of 50 `,
      `with the exact total per request, ${CONNECTIONS} connection(s), ${DURATION} s per case after 1 s warm-up `,
      `(autocannon). Target p50 ≤ 50 ms: worst ${worst.toFixed(1)} ms (${worst <= 50 ? 'met' : 'NOT met'}). `,
      `Bare Fastify route in the same run: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms, p99 ${bareFigures.p99.toFixed(2)} ms.`,
      '',
      '| case | parameters | total | p50 ms | p99 ms | req/s | % of bare |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...results.map(
        (r) =>
          `| ${r.name} | \`${r.qs || '—'}\` | ${r.total.toLocaleString('en')} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${Math.round(r.rps)} | ${((100 * r.rps) / bareFigures.rps).toFixed(2)} % |`,
      ),
    ];
    if (!args['no-write'] && only.length === 0)
      writeSection(join(ROOT, 'bench/RESULTS.md'), 'event-search-postgres', lines);
  } finally {
    for (const c of children) await stopChild(c).catch(() => {});
    await stopAll();
    if (db && !args.keep) await db.dispose();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
