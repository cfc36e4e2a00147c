/**
 * Project overview (GET /api/admin/projects/:id) and health report (…/health-report) of a project
 * with 10,000 flags: p50/p95 and req/s next to a bare Fastify route in the same run. Target
 * (issue "Projects"): p50 ≤ 50 ms on PostgreSQL. See bench/README.md, "Projects".
 *   npx tsx bench/projects.ts --engine postgres
 *   npx tsx bench/projects.ts --engine pglite --duration 3
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBare } from './lib/baseline.js';
import { createPgliteDatabase, createPostgresDatabase } from './lib/db.js';
import { measure, percentile } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '10000' },
    events: { type: 'string', default: '200000' },
    connections: { type: 'string', default: '1' },
    duration: { type: 'string', default: '5' },
    'no-write': { type: 'boolean', default: false },
    /** Keep the loaded database and print where it is (to look at query plans), skip the load runs. */
    keep: { type: 'boolean', default: false },
  },
});
const engine = args.engine === 'pglite' ? 'pglite' : 'postgres';
const F = Number(args.flags);
const E = Number(args.events);
const CONNECTIONS = Number(args.connections);
const DURATION = Number(args.duration);
const log = (m: string) => console.log(m);

/**
 * Project `bench` with F flags (a tenth in a second project), both environments, a strategy in
 * each enabled environment, two tags per flag, flags created over the last 90 days (some stale,
 * some archived), E events of the project over the last 90 days and a few role grants.
 */
function datasetSql(): string[] {
  return [
    `INSERT INTO projects (id, name) VALUES ('bench', 'Bench'), ('bench-other', 'Other');
     INSERT INTO project_environments (project_id, environment_name)
       SELECT p.id, e.name FROM projects p CROSS JOIN environments e WHERE p.id LIKE 'bench%';`,
    `INSERT INTO features (name, project, type, description, stale, potentially_stale, created_at,
        created_by_name, archived_at)
     SELECT 'bench-flag-' || i, CASE WHEN i % 10 = 0 THEN 'bench-other' ELSE 'bench' END,
       (ARRAY['release','experiment','operational','kill-switch','permission'])[1 + i % 5],
       'Flag ' || i, i % 20 = 1, i % 20 = 2, now() - (i % 90) * interval '1 day' - i * interval '1 second',
       'bench', CASE WHEN i % 25 = 7 THEN now() - (i % 60) * interval '1 day' END
     FROM generate_series(1, ${Math.round(F / 0.9)}) i;`,
    `INSERT INTO feature_environments (feature_name, environment, enabled)
     SELECT f.name, pe.environment_name, (hashtext(f.name || pe.environment_name) % 3) = 0
     FROM features f JOIN project_environments pe ON pe.project_id = f.project WHERE f.created_by_name = 'bench';
     INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, sort_order, disabled)
     SELECT md5(fe.feature_name || fe.environment), fe.feature_name, fe.environment, 'default', 0, false
     FROM feature_environments fe WHERE fe.enabled;`,
    `INSERT INTO tags (type, value) SELECT 'simple', 'tag-' || i FROM generate_series(0, 99) i;
     INSERT INTO feature_tag (feature_name, tag_type, tag_value)
     SELECT f.name, 'simple', 'tag-' || (abs(hashtext(f.name || k)) % 100) FROM features f, generate_series(1, 2) k
     WHERE f.created_by_name = 'bench' ON CONFLICT DO NOTHING;`,
    // Events without the per-row trigger; the change counter gets their number in one row.
    `SET session_replication_role = replica;
     INSERT INTO events (type, created_by, project, feature_name, environment, created_at, data, tags)
     SELECT (ARRAY['feature-created','feature-updated','feature-environment-enabled'])[1 + i % 3], 'bench',
       'bench', 'bench-flag-' || (1 + i % ${F}), CASE WHEN i % 3 = 2 THEN 'production' END,
       now() - (i % 90) * interval '1 day', '{}'::jsonb, '[]'::jsonb
     FROM generate_series(1, ${E}) i;
     SET session_replication_role = origin;
     INSERT INTO event_counts (shard, count) VALUES (pg_backend_pid() % 16, ${E})
       ON CONFLICT (shard) DO UPDATE SET count = event_counts.count + EXCLUDED.count;`,
    'ANALYZE',
  ];
}

async function main() {
  const db =
    engine === 'postgres' ? await createPostgresDatabase('flagship_projects') : await createPgliteDatabase();
  const children: Child[] = [];
  try {
    log(
      `projects bench: ${engine}, ${F} flags in one project, ${CONNECTIONS} connection(s), ${DURATION} s per case`,
    );
    await stopChild(await startService(db.target));
    const sql = await db.connect();
    const t0 = performance.now();
    for (const statement of datasetSql()) await sql.query(statement);
    const [facts] = await sql.query<{ active: number; archived: number }>(
      `SELECT count(*) FILTER (WHERE archived_at IS NULL)::int AS active,
        count(*) FILTER (WHERE archived_at IS NOT NULL)::int AS archived FROM features WHERE project = 'bench'`,
    );
    log(`loaded in ${Math.round(performance.now() - t0)} ms: ${JSON.stringify(facts)}`);
    await sql.close();
    if (args.keep) {
      log(`kept: ${db.describe} (${JSON.stringify(db.target.env)})`);
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

    const service = await startService(db.target);
    children.push(service);
    const base = `http://127.0.0.1:${service.port}/api/admin`;
    const cases: [string, string][] = [
      ['project overview', `${base}/projects/bench`],
      ['health report', `${base}/projects/bench/health-report`],
      ['archived flags (deprecated list)', `${base}/archive/features/bench`],
      ['project list', `${base}/projects`],
    ];
    const rows: string[] = [];
    let worstP50 = 0;
    for (const [name, url] of cases) {
      const first = await fetch(url, { headers: { authorization: ADMIN_TOKEN } });
      const text = await first.text();
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${text.slice(0, 300)}`);
      const f = await measure(
        { url, headers: { authorization: ADMIN_TOKEN }, connections: CONNECTIONS, durationS: DURATION },
        1,
      );
      const p95 = percentile(f.samples ?? [], 95);
      if (name !== 'project list' && !name.startsWith('archived')) worstP50 = Math.max(worstP50, f.p50);
      log(
        `${name.padEnd(34)} ${(text.length / 1e6).toFixed(2)} MB  p50 ${f.p50.toFixed(1)} ms  p95 ${p95.toFixed(1)} ms  ${Math.round(f.rps)} req/s`,
      );
      rows.push(
        `| ${name} | ${(text.length / 1e6).toFixed(2)} MB | ${f.p50.toFixed(1)} | ${p95.toFixed(1)} | ${Math.round(f.rps)} | ${((100 * f.rps) / bareFigures.rps).toFixed(2)} % |`,
      );
    }
    await stopChild(service);
    const lines = [
      `### Projects, ${engine} (${new Date().toISOString().slice(0, 10)})`,
      '',
      `${machineFacts()}. Project \`bench\`: ${facts?.active} active and ${facts?.archived} archived flags, 2 environments, `,
      `a strategy per enabled environment, 2 tags per flag, ${E.toLocaleString('en')} events over 90 days. `,
      `${CONNECTIONS} connection(s), ${DURATION} s per case after 1 s warm-up (autocannon). `,
      `Target p50 ≤ 50 ms for the overview and the health report (PostgreSQL): worst ${worstP50.toFixed(1)} ms `,
      `(${worstP50 <= 50 ? 'met' : 'NOT met'}). Bare Fastify route in the same run: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms.`,
      '',
      '| case | body | p50 ms | p95 ms | req/s | % of bare |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
    ];
    if (!args['no-write']) writeSection(join(ROOT, 'bench/RESULTS.md'), `projects-${engine}`, lines);
  } finally {
    for (const c of children) await stopChild(c).catch(() => {});
    await stopAll();
    if (!args.keep) await db.dispose();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
