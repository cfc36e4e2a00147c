/**
 * Change requests (issue 47) on PostgreSQL: a project with 1,000 change requests (three changes
 * each, in every state, by 20 people) listed and filtered, p50/p95 and req/s next to a bare Fastify
 * route in the same run; then requests of 20 changes applied one after the other, each timed.
 * Targets: list and filter p95 ≤ 50 ms; applying 20 changes ≤ 100 ms. See bench/README.md.
 *   npx tsx bench/change-requests.ts                  # PostgreSQL (BENCH_PG_URL), ~1 min
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBare } from './lib/baseline.js';
import { createPostgresDatabase } from './lib/db.js';
import { measure, percentile } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    applies: { type: 'string', default: '10' },
    connections: { type: 'string', default: '1' },
    duration: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  },
});
const R = Number(args.requests);
const APPLIES = Number(args.applies);
const CONNECTIONS = Number(args.connections);
const DURATION = Number(args.duration);
const PROJECT = 'crbench';
const PASSWORD = 'Correct-Horse-7-Battery';
const log = (m: string) => console.log(m);

/**
 * R requests in `production` of PROJECT by users 1..20 (created through the API first), three
 * changes each on 100 flags, states spread as a busy project has them, a reviewer on every fifth.
 */
function datasetSql(users: number[]): string[] {
  const ids = `ARRAY[${users.join(',')}]`;
  const states = `ARRAY['Draft','In review','Approved','Applied','Applied','Applied','Rejected','Cancelled']`;
  return [
    `INSERT INTO change_request_settings (project, environment, required_approvals) VALUES ('${PROJECT}', 'production', 1)`,
    `INSERT INTO change_requests (project, environment, title, state, min_approvals, created_by_user_id, created_at, state_timestamps)
     SELECT '${PROJECT}', 'production', CASE WHEN i % 3 = 0 THEN 'Request ' || i END, (${states})[1 + i % 8], 1,
       (${ids})[1 + i % ${users.length}], now() - interval '1 minute' * (${R} - i), '{}'::jsonb
     FROM generate_series(1, ${R}) i
     ON CONFLICT DO NOTHING`,
    `INSERT INTO change_request_changes (change_request_id, feature, action, change, created_by_user_id)
     SELECT r.id, 'crflag-' || ((r.id * 3 + k) % 100), 'updateEnabled',
       jsonb_build_object('action', 'updateEnabled', 'project', '${PROJECT}', 'feature', 'crflag-' || ((r.id * 3 + k) % 100),
         'environment', 'production', 'payload', jsonb_build_object('enabled', k % 2 = 0)),
       r.created_by_user_id
     FROM change_requests r, generate_series(1, 3) k WHERE r.project = '${PROJECT}'`,
    `INSERT INTO change_request_reviewers (change_request_id, user_id)
     SELECT id, (${ids})[1 + (id / 5) % ${users.length}] FROM change_requests WHERE project = '${PROJECT}' AND id % 5 = 0`,
    'ANALYZE',
  ];
}

async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: ADMIN_TOKEN,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return { res, json: text ? JSON.parse(text) : undefined };
}

async function main() {
  const db = await createPostgresDatabase('flagship_crbench');
  const children: Child[] = [];
  try {
    log(
      `change request bench: ${db.describe}, ${R} requests, ${CONNECTIONS} connection(s), ${DURATION} s per case`,
    );
    const service = await startService(db.target);
    children.push(service);
    const base = `http://127.0.0.1:${service.port}`;
    await api(base, 'POST', '/api/admin/projects', { id: PROJECT, name: PROJECT });
    for (let i = 0; i < 100 + 20 * APPLIES; i++)
      await api(base, 'POST', `/api/admin/projects/${PROJECT}/features`, { name: `crflag-${i}` });
    const users: number[] = [];
    const sessions: string[] = [];
    for (let i = 0; i < 20; i++) {
      const username = `crbench-user-${i}`;
      const created = await api(base, 'POST', '/api/admin/user-admin', {
        username,
        password: PASSWORD,
        rootRole: 'Admin',
      });
      users.push(created.json.id);
      if (i < 2) {
        const login = await api(
          base,
          'POST',
          '/auth/simple/login',
          { username, password: PASSWORD },
          { authorization: '' },
        );
        const cookie = login.res.headers.getSetCookie().find((c) => c.startsWith('flagship-session='));
        sessions.push(String(cookie?.split(';')[0]));
      }
    }
    const sql = new pg.Client({ connectionString: db.target.env.DATABASE_URL });
    await sql.connect();
    const t0 = performance.now();
    for (const statement of datasetSql(users)) await sql.query(statement);
    log(`loaded in ${Math.round(performance.now() - t0)} ms`);
    await sql.end();

    const bare = await startBare();
    children.push(bare);
    const bareFigures = await measure(
      { url: `http://127.0.0.1:${bare.port}/bare`, connections: CONNECTIONS, durationS: DURATION },
      1,
    );
    await stopChild(bare);
    log(`bare route: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms`);

    const p = `/api/admin/projects/${PROJECT}/change-requests`;
    const cases: [string, string][] = [
      ['search: open, first page', `/api/admin/search/change-requests?state=IS:open&limit=50`],
      ['search: closed, page 10', `/api/admin/search/change-requests?state=IS:closed&offset=450&limit=50`],
      ['search: by author', `/api/admin/search/change-requests?createdBy=IS:${users[3]}&limit=50`],
      ['search: asked to review', `/api/admin/search/change-requests?requestedApproverId=IS:${users[4]}`],
      ['count by state', `${p}/count`],
      ['pending of a flag', `${p}/pending/crflag-7`],
      ['actionable', `${p}/actionable`],
      ['one request in review (3 conflict checks)', `${p}/9`],
      ['whole project list', p],
    ];
    const results: {
      name: string;
      path: string;
      found: number | string;
      p50: number;
      p95: number;
      rps: number;
    }[] = [];
    for (const [name, path] of cases) {
      const url = `${base}${path}`;
      const first = await fetch(url, { headers: { authorization: ADMIN_TOKEN } });
      const text = await first.text();
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${text.slice(0, 300)}`);
      const answer = JSON.parse(text) as { total?: number } | unknown[];
      const found = Array.isArray(answer) ? answer.length : (answer.total ?? '—');
      const f = await measure(
        { url, headers: { authorization: ADMIN_TOKEN }, connections: CONNECTIONS, durationS: DURATION },
        1,
      );
      if (f.non2xx > 0 || f.errors > 0) throw new Error(`${name}: ${f.non2xx} non-2xx, ${f.errors} errors`);
      results.push({ name, path, found, p50: f.p50, p95: percentile(f.samples ?? [], 95), rps: f.rps });
      log(
        `${name.padEnd(30)} ${String(found).padStart(5)} found  p50 ${f.p50.toFixed(1)} ms  p95 ${percentile(f.samples ?? [], 95).toFixed(1)} ms  ${Math.round(f.rps)} req/s`,
      );
    }

    // Requests of 20 changes (a strategy each on 20 flags of their own), approved, then applied.
    const [author, approver] = sessions as [string, string];
    const applyMs: number[] = [];
    for (let a = 0; a < APPLIES; a++) {
      const changes = Array.from({ length: 20 }, (_, i) => ({
        feature: `crflag-${100 + a * 20 + i}`,
        action: 'addStrategy',
        payload: { name: 'flexibleRollout', parameters: { rollout: String(i * 5) } },
      }));
      const draft = await api(
        base,
        'POST',
        `/api/admin/projects/${PROJECT}/environments/production/change-requests`,
        changes,
        {
          authorization: '',
          cookie: author,
        },
      );
      const id = draft.json.id;
      const as = (cookie: string) => ({ authorization: '', cookie });
      await api(base, 'PUT', `${p}/${id}/state`, { state: 'In review' }, as(author));
      await api(base, 'PUT', `${p}/${id}/state`, { state: 'Approved' }, as(approver));
      const start = performance.now();
      await api(base, 'PUT', `${p}/${id}/state`, { state: 'Applied' }, as(approver));
      applyMs.push(performance.now() - start);
    }
    await stopChild(service);
    const applyP50 = percentile(applyMs, 50);
    const applyMax = Math.max(...applyMs);
    log(
      `apply 20 changes: p50 ${applyP50.toFixed(1)} ms, max ${applyMax.toFixed(1)} ms (${applyMs.map((m) => m.toFixed(0)).join(', ')})`,
    );

    // Every list and filter (not the one request's page, which checks its changes).
    const listWorst = Math.max(...results.filter((r) => !r.name.startsWith('one request')).map((r) => r.p95));
    const lines = [
      `### Change requests at ${R.toLocaleString('en')} requests, PostgreSQL (${new Date().toISOString().slice(0, 10)})`,
      `${machineFacts()}. \`npx tsx bench/change-requests.ts\`: ${R.toLocaleString('en')} requests of one project `,
      `(three changes each, every state, 20 authors, a reviewer on every fifth), ${CONNECTIONS} connection(s), `,
      `${DURATION} s per case after 1 s warm-up (autocannon). Target: list and filter p95 ≤ 50 ms: worst `,
      `${listWorst.toFixed(1)} ms (${listWorst <= 50 ? 'met' : 'NOT met'}). Applying a request of 20 changes (the `,
      `PUT of its state, answer included), ${APPLIES} times: p50 ${applyP50.toFixed(1)} ms, max ${applyMax.toFixed(1)} ms `,
      `(target ≤ 100 ms: ${applyMax <= 100 ? 'met' : applyP50 <= 100 ? 'met at p50, not at max' : 'NOT met'}). `,
      `Bare Fastify route in the same run: ${Math.round(bareFigures.rps)} req/s, p50 ${bareFigures.p50.toFixed(2)} ms.`,
      '',
      '| case | path | found | p50 ms | p95 ms | req/s | of bare |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...results.map(
        (r) =>
          `| ${r.name} | \`${r.path.replace(`/api/admin/projects/${PROJECT}`, '…')}\` | ${r.found} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${Math.round(r.rps)} | ${((100 * r.rps) / bareFigures.rps).toFixed(2)} % |`,
      ),
    ];
    if (!args['no-write']) writeSection(join(ROOT, 'bench/RESULTS.md'), 'change-requests-postgres', lines);
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
