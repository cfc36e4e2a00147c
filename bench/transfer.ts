/**
 * Export and import of a large configuration (POST /api/admin/features-batch/export, /validate,
 * /import): 10,000 flags with 3 strategies each, tags, segments and flag variants, exported from
 * one instance and imported into another (an empty database). See bench/README.md, "Transfer".
 *   npx tsx bench/transfer.ts                       # PostgreSQL (BENCH_PG_URL)
 *   npx tsx bench/transfer.ts --engine pglite --runs 3
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { createDatabase, scratchCleanup } from './lib/db.js';
import { median } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    flags: { type: 'string', default: '10000' },
    segments: { type: 'string', default: '100' },
    runs: { type: 'string', default: '5' },
    /** Also write the exported document to this file (e.g. to try the import elsewhere). */
    save: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const engine = args.engine === 'pglite' ? 'pglite' : 'postgres';
const F = Number(args.flags);
const G = Number(args.segments);
const RUNS = Number(args.runs);
const PROJECT = 'bench-transfer';
const log = (m: string) => console.log(m);

/**
 * The source configuration, set-based: every flag has 3 strategies in development (flexibleRollout
 * with 2 constraints and a segment, default with a constraint, flexibleRollout with 2 strategy
 * variants), 2 tags (of 2 tag types), half of them on, a fifth with 2 flag variants; production
 * has one default strategy per flag (not exported). A custom context field is used by constraints.
 */
function datasetSql(): string[] {
  return [
    `INSERT INTO projects (id, name) VALUES ('${PROJECT}', 'Transfer bench');
     INSERT INTO project_environments (project_id, environment_name)
       SELECT '${PROJECT}', name FROM environments WHERE name IN ('development', 'production');
     INSERT INTO context_fields (name, description, legal_values)
       VALUES ('tier', 'Customer tier', '[{"value":"gold"},{"value":"silver"},{"value":"bronze"}]');
     INSERT INTO tag_types (name, description, color) VALUES ('team', 'Owning team', '#336699');
     INSERT INTO segments (name, constraints)
       SELECT 'bench-segment-' || i, '[{"contextName":"userId","operator":"IN","values":["u1","u2"],"inverted":false,"caseInsensitive":false}]'
       FROM generate_series(1, ${G}) i;`,
    `INSERT INTO features (name, project, type, description, impression_data, created_by_user_id, created_by_name)
     SELECT 'bench-flag-' || lpad(i::text, 6, '0'), '${PROJECT}',
       (ARRAY['release','experiment','operational','kill-switch','permission'])[1 + i % 5],
       'Flag number ' || i, i % 7 = 0, -42, 'bench'
     FROM generate_series(1, ${F}) i;
     INSERT INTO feature_environments (feature_name, environment, enabled, variants)
     SELECT f.name, e.env, e.env = 'development' AND right(f.name, 1)::int % 2 = 0,
       CASE WHEN e.env = 'development' AND right(f.name, 1)::int % 5 = 0 THEN
         '[{"name":"blue","weight":500,"weightType":"variable","stickiness":"default","payload":{"type":"string","value":"b"}},{"name":"red","weight":500,"weightType":"variable","stickiness":"default"}]'::jsonb
       ELSE '[]'::jsonb END
     FROM features f CROSS JOIN (VALUES ('development'), ('production')) e(env)
     WHERE f.project = '${PROJECT}';
     INSERT INTO feature_lifecycles (feature_name, stage) SELECT name, 'initial' FROM features WHERE project = '${PROJECT}';`,
    `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, title, sort_order, parameters,
        constraints, variants, created_by_user_id)
     SELECT md5(f.name || '-' || k), f.name, 'development',
       CASE k WHEN 1 THEN 'flexibleRollout' WHEN 2 THEN 'default' ELSE 'flexibleRollout' END,
       CASE k WHEN 2 THEN 'Internal users' END, k - 1,
       CASE k WHEN 2 THEN '{}'::jsonb
         ELSE jsonb_build_object('rollout', (k * 25)::text, 'stickiness', 'default', 'groupId', f.name) END,
       CASE k
         WHEN 1 THEN '[{"contextName":"tier","operator":"IN","values":["gold","silver"],"caseInsensitive":false,"inverted":false},{"contextName":"appName","operator":"STR_STARTS_WITH","values":["web","ios"],"caseInsensitive":true,"inverted":false}]'::jsonb
         WHEN 2 THEN '[{"contextName":"userId","operator":"IN","values":["alice","bob","carol"],"caseInsensitive":false,"inverted":false}]'::jsonb
         ELSE '[]'::jsonb END,
       CASE k WHEN 3 THEN '[{"name":"a","weight":500,"weightType":"variable","stickiness":"default","payload":{"type":"json","value":"{\\"x\\":1}"}},{"name":"b","weight":500,"weightType":"variable","stickiness":"default"}]'::jsonb
         ELSE '[]'::jsonb END, -42
     FROM features f CROSS JOIN generate_series(1, 3) k WHERE f.project = '${PROJECT}';
     INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, sort_order)
     SELECT md5(name || '-prod'), name, 'production', 'default', 0 FROM features WHERE project = '${PROJECT}';
     INSERT INTO feature_strategy_segment (feature_strategy_id, segment_id)
     SELECT md5(f.name || '-1'), g.id FROM features f
       JOIN segments g ON g.name = 'bench-segment-' || (1 + abs(hashtext(f.name)) % ${G})
     WHERE f.project = '${PROJECT}';`,
    `INSERT INTO tags (type, value)
       SELECT 'simple', 'area-' || i FROM generate_series(0, 19) i
       UNION ALL SELECT 'team', 'team-' || i FROM generate_series(0, 49) i;
     INSERT INTO feature_tag (feature_name, tag_type, tag_value)
     SELECT name, 'simple', 'area-' || (abs(hashtext(name)) % 20) FROM features WHERE project = '${PROJECT}'
     UNION ALL
     SELECT name, 'team', 'team-' || (abs(hashtext(name || 't')) % 50) FROM features WHERE project = '${PROJECT}';`,
    'ANALYZE',
  ];
}

/** VmRSS of a process in MB, sampled every 10 ms while `work` runs: before, peak. */
async function withRss<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ value: T; before: number; peak: number }> {
  const rss = () => {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(kb?.[1] ?? 0) / 1024;
  };
  const before = rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 10);
  try {
    const value = await work();
    peak = Math.max(peak, rss());
    return { value, before, peak };
  } finally {
    clearInterval(timer);
  }
}

async function call(service: Child, path: string, body: string, expected = 200) {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
    method: 'POST',
    headers: { authorization: ADMIN_TOKEN, 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== expected) throw new Error(`${path}: ${res.status} ${text.slice(0, 500)}`);
  return { ms, text };
}

interface Timed {
  name: string;
  runs: number[];
  target?: number;
  rssBefore: number;
  rssPeak: number;
  note: string;
}

async function main() {
  const loadAtStart = loadavg()[0] ?? 0;
  const { databases, cleanup } = scratchCleanup(log, stopAll);
  const children: Child[] = [];
  try {
    const [source, target] = [await createDatabase(engine), await createDatabase(engine)];
    databases.push(source, target);
    log(`transfer bench: ${engine}, ${F} flags × 3 strategies, ${G} segments`);
    // Migrate both with the service, load the source dataset with it stopped.
    await stopChild(await startService(source.target));
    const sql = await source.connect();
    const t0 = performance.now();
    for (const statement of datasetSql()) await sql.query(statement);
    const [facts] = await sql.query<{ flags: number; strategies: number; tags: number }>(
      `SELECT (SELECT count(*) FROM features)::int AS flags, (SELECT count(*) FROM feature_strategies)::int AS strategies,
        (SELECT count(*) FROM feature_tag)::int AS tags`,
    );
    const loadMs = performance.now() - t0;
    log(`loaded in ${Math.round(loadMs)} ms: ${JSON.stringify(facts)}`);
    await sql.close();

    const results: Timed[] = [];
    const from = await startService(source.target);
    children.push(from);
    const query = JSON.stringify({ environment: 'development', project: PROJECT });
    let exported = '';
    const exportRuns: number[] = [];
    let exportRss = { before: 0, peak: 0 };
    for (let i = 0; i <= RUNS; i++) {
      const { value, before, peak } = await withRss(from.pid, () =>
        call(from, '/api/admin/features-batch/export', query),
      );
      exported = value.text;
      if (i === 0) exportRss = { before, peak };
      else exportRuns.push(value.ms);
      log(
        `export ${i === 0 ? '(first)' : i}: ${Math.round(value.ms)} ms, ${(value.text.length / 1e6).toFixed(1)} MB`,
      );
    }
    if (args.save) writeFileSync(args.save, exported);
    const document = JSON.parse(exported) as { features: unknown[]; featureStrategies: unknown[] };
    if (document.features.length !== F || document.featureStrategies.length !== 3 * F) {
      throw new Error(
        `export has ${document.features.length} flags, ${document.featureStrategies.length} strategies`,
      );
    }
    results.push({
      name: `export ${F} flags (project selection, development)`,
      runs: exportRuns,
      target: engine === 'postgres' ? 2000 : undefined,
      rssBefore: exportRss.before,
      rssPeak: exportRss.peak,
      note: `response ${(exported.length / 1e6).toFixed(1)} MB; median of ${RUNS} after a first run (${Math.round(exportRss.peak - exportRss.before)} MB RSS growth in the first)`,
    });
    await stopChild(from);

    // The target: an empty instance with the project and the segments (by name) the strategies use.
    const to = await startService(target.target);
    children.push(to);
    await call(to, '/api/admin/projects', JSON.stringify({ id: PROJECT, name: 'Transfer bench' }), 201);
    for (let i = 1; i <= G; i++) {
      await call(
        to,
        '/api/admin/segments',
        JSON.stringify({ name: `bench-segment-${i}`, constraints: [] }),
        201,
      );
    }
    const body = JSON.stringify({ project: PROJECT, environment: 'development', data: document });
    log(`import body: ${(body.length / 1e6).toFixed(1)} MB`);

    const validate = await withRss(to.pid, () => call(to, '/api/admin/features-batch/validate', body));
    const validation = JSON.parse(validate.value.text) as { errors: unknown[] };
    if (validation.errors.length > 0) throw new Error(`validation: ${validate.value.text.slice(0, 1000)}`);
    log(`validate: ${Math.round(validate.value.ms)} ms`);
    results.push({
      name: 'validate the document (empty target)',
      runs: [validate.value.ms],
      rssBefore: validate.before,
      rssPeak: validate.peak,
      note: 'one run',
    });

    const first = await withRss(to.pid, () => call(to, '/api/admin/features-batch/import', body));
    log(
      `import: ${Math.round(first.value.ms)} ms, RSS ${Math.round(first.before)} → peak ${Math.round(first.peak)} MB`,
    );
    const counts = await target.connect().then(async (db) => {
      const [row] = await db.query<{ flags: number; strategies: number; tags: number; events: number }>(
        `SELECT (SELECT count(*) FROM features)::int AS flags, (SELECT count(*) FROM feature_strategies)::int AS strategies,
          (SELECT count(*) FROM feature_tag)::int AS tags, (SELECT count(*) FROM events)::int AS events`,
      );
      if (engine === 'postgres') await db.close();
      else await db.close();
      return row;
    });
    results.push({
      name: `import ${F} flags into an empty instance`,
      runs: [first.value.ms],
      target: engine === 'postgres' ? 10_000 : undefined,
      rssBefore: first.before,
      rssPeak: first.peak,
      note: `one transaction; wrote ${counts?.flags} flags, ${counts?.strategies} strategies, ${counts?.tags} tags, ${counts?.events} events`,
    });

    const again: number[] = [];
    let againRss = { before: 0, peak: 0 };
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const { value, before, peak } = await withRss(to.pid, () =>
        call(to, '/api/admin/features-batch/import', body),
      );
      again.push(value.ms);
      if (i === 0) againRss = { before, peak };
      log(`import again ${i + 1}: ${Math.round(value.ms)} ms`);
    }
    results.push({
      name: 'import the same document again (no change)',
      runs: again,
      rssBefore: againRss.before,
      rssPeak: againRss.peak,
      note: `median of ${again.length}; records no event`,
    });

    // The round trip holds at this size too.
    const back = await call(to, '/api/admin/features-batch/export', query);
    const equal = isDeepStrictEqual(JSON.parse(back.text), document);
    log(`export from the target equals the source export: ${equal}`);
    if (!equal) throw new Error('the round trip lost something');
    await stopChild(to);

    const rows = results.map((r) => {
      const m = median(r.runs);
      const met = r.target === undefined ? '—' : m <= r.target ? 'met' : '**missed**';
      return `| ${r.name} | ${Math.round(m)} ms | ${r.target === undefined ? '—' : `≤ ${r.target} ms`} | ${met} | ${Math.round(r.rssBefore)} → ${Math.round(r.rssPeak)} MB | ${r.note} |`;
    });
    const lines = [
      `### Transfer, ${engine} (${new Date().toISOString().slice(0, 16).replace('T', ' ')})`,
      '',
      `${machineFacts()}. Command: \`npx tsx bench/transfer.ts --engine ${engine} --flags ${F} --segments ${G} --runs ${RUNS}\`.`,
      `Source: ${F.toLocaleString('en')} flags in one project, each with 3 strategies in development (2 constraints and a segment; a constraint; 2 strategy variants), 2 tags of 2 tag types, a fifth with flag variants, half enabled; ${G} segments; loaded set-based in ${Math.round(loadMs)} ms. The target is a second, empty instance (own database) with the project and the ${G} segments created through the API.`,
      '',
      '| Operation | Wall time | Target | Met | Service RSS (before → peak) | Notes |',
      '| --- | ---: | --- | --- | --- | --- |',
      ...rows,
      '',
      `Wall time is request to last byte, measured by the client (fetch) on the same machine; 1-minute load average ${loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end (the machine is shared). RSS is the service process's VmRSS sampled every 10 ms. Exporting again from the target gives a document equal to the source's (checked).`,
    ];
    for (const line of lines) log(line);
    if (!args['no-write']) writeSection(join(ROOT, 'bench/RESULTS.md'), `transfer-${engine}`, lines);
  } finally {
    for (const c of children) await stopChild(c).catch(() => {});
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
