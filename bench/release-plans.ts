/**
 * Release plans (issue 48) on PostgreSQL: how long a milestone start takes to reach the client
 * API. A plan of two milestones (10 % and 100 % rollouts) on a flag among `--flags`; each round
 * starts one milestone (the admin call timed) and polls `/api/client/features/:name` with a client
 * token every 10 ms until the new rollout shows (the time from the start's answer). Target: every
 * milestone start reaches the client API within 1 s.
 *   npx tsx bench/release-plans.ts                  # PostgreSQL (BENCH_PG_URL), ~30 s
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from './lib/dataset.js';
import { createPostgresDatabase } from './lib/db.js';
import { percentile } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    flags: { type: 'string', default: '200' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const FLAGS = Number(args.flags);
const log = (m: string) => console.log(m);

async function call(base: string, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: token, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const rollout = (percent: number) => ({
  name: 'flexibleRollout',
  sortOrder: 0,
  // The group id tells the plan's strategy from the dataset's own rollouts on the flag.
  parameters: { rollout: String(percent), stickiness: 'default', groupId: 'bench-plan' },
});

async function main() {
  const db = await createPostgresDatabase('flagship_rpbench');
  const children: Child[] = [];
  try {
    log(`release plan bench: ${db.describe}, ${ROUNDS} milestone starts, ${FLAGS} flags`);
    const service = await startService(db.target);
    children.push(service);
    const base = `http://127.0.0.1:${service.port}`;
    const sql = await db.connect();
    await loadDataset(
      sql,
      { projects: 1, flags: FLAGS, strategiesPerEnv: 2, segments: 5, tags: 5, events: 1000 },
      log,
    );
    await sql.close();
    const project = 'bench-p1';
    const flag = 'bench-flag-1';
    const env = `/api/admin/projects/${project}/features/${flag}/environments/development`;
    const template = await call(base, 'POST', '/api/admin/release-plan-templates', {
      name: 'bench two steps',
      milestones: [
        { name: 'Ten', sortOrder: 0, strategies: [rollout(10)] },
        { name: 'All', sortOrder: 1, strategies: [rollout(100)] },
      ],
    });
    const plan = await call(base, 'POST', `${env}/release-plans`, { templateId: template.id });
    const client = await call(base, 'POST', '/api/admin/api-tokens', {
      type: 'client',
      tokenName: 'bench-client',
      environment: 'development',
      projects: ['*'],
    });
    const rolloutSeen = async () => {
      const res = await fetch(`${base}/api/client/features/${flag}`, {
        headers: { authorization: client.secret },
      });
      const body = (await res.json()) as {
        strategies: { name: string; parameters?: { rollout?: string; groupId?: string } }[];
      };
      return body.strategies.find((s) => s.parameters?.groupId === 'bench-plan')?.parameters?.rollout;
    };
    const startMs: number[] = [];
    const visibleMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const milestone = plan.milestones[i % 2];
      const want = i % 2 === 0 ? '10' : '100';
      const t0 = performance.now();
      await call(base, 'POST', `${env}/release-plans/${plan.id}/milestones/${milestone.id}/start`);
      const t1 = performance.now();
      startMs.push(t1 - t0);
      while ((await rolloutSeen()) !== want) {
        if (performance.now() - t1 > 10_000) throw new Error(`round ${i}: not visible after 10 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      visibleMs.push(performance.now() - t1);
    }
    await stopChild(service);
    const worst = Math.max(...visibleMs);
    log(
      `start p50 ${percentile(startMs, 50).toFixed(1)} ms; visible to SDKs after p50 ${percentile(visibleMs, 50).toFixed(1)} ms, max ${worst.toFixed(1)} ms`,
    );
    const lines = [
      `### Release plan milestone start to the client API, PostgreSQL (${new Date().toISOString().slice(0, 10)})`,
      `${machineFacts()}. \`npx tsx bench/release-plans.ts\`: ${FLAGS} flags; a plan of two milestones (10 % and 100 % `,
      `rollouts) on one flag, started in turn ${ROUNDS} times; after each start's answer, \`/api/client/features/:name\` `,
      `polled every 10 ms until the new rollout shows. Target: within 1 s (worst ${worst.toFixed(1)} ms: `,
      `${worst <= 1000 ? 'met' : 'NOT met'}).`,
      '',
      '| figure | p50 ms | max ms |',
      '| --- | --- | --- |',
      `| milestone start (admin call) | ${percentile(startMs, 50).toFixed(1)} | ${Math.max(...startMs).toFixed(1)} |`,
      `| from its answer to the client API showing it | ${percentile(visibleMs, 50).toFixed(1)} | ${worst.toFixed(1)} |`,
    ];
    if (!args['no-write']) writeSection(join(ROOT, 'bench/RESULTS.md'), 'release-plans-postgres', lines);
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
