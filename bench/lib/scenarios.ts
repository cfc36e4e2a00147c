import { nodeBareStartMs, startBare } from './baseline.js';
import { flagName, projectOf } from './dataset.js';
import type { BenchDatabase } from './db.js';
import { type LoadFigures, measure, median } from './measure.js';
import type { Row } from './report.js';
import { ADMIN_TOKEN, type Child, rssMb, startService, stopChild } from './service.js';

export interface Context {
  db: BenchDatabase;
  connections: number;
  durationS: number;
  projects: number;
  flags: number;
  events: number;
  restarts: number;
  /** The service instance the load scenarios hit. */
  service: Child;
  /** The bare Fastify route, measured once in this run with the same settings. */
  bare: LoadFigures;
  /** The bare route with one connection, for the one-connection create run. */
  bare1: LoadFigures;
  log: (m: string) => void;
}

const auth = { authorization: ADMIN_TOKEN };
const url = (c: Child, path: string) => `http://127.0.0.1:${c.port}${path}`;

/** p50, p99 and req/s of a load run as rows, next to the bare route's figures. */
function loadRows(name: string, f: LoadFigures, bare: LoadFigures, p50Target?: number): Row[] {
  const note = f.errors + f.non2xx > 0 ? `${f.errors} errors, ${f.non2xx} non-2xx` : `${f.requests} requests`;
  return [
    {
      scenario: name,
      figure: 'p50 latency',
      value: f.p50,
      baseline: bare.p50,
      unit: 'ms',
      target: p50Target,
    },
    { scenario: name, figure: 'p99 latency', value: f.p99, baseline: bare.p99, unit: 'ms' },
    { scenario: name, figure: 'mean latency', value: f.mean, baseline: bare.mean, unit: 'ms' },
    {
      scenario: name,
      figure: 'throughput',
      value: f.rps,
      baseline: bare.rps,
      unit: 'req/s',
      lowerIsBetter: false,
      note,
    },
  ];
}

export async function measureBare(connections: number, durationS: number): Promise<LoadFigures> {
  const bare = await startBare();
  try {
    return await measure({ url: url(bare, '/bare'), connections, durationS });
  } finally {
    await stopChild(bare);
  }
}

/** POST a new flag per request (unique names), all into one project. */
export async function createFlag(ctx: Context): Promise<Row[]> {
  let n = 0;
  const prefix = `bench-new-${Date.now().toString(36)}`;
  const run = (connections: number) =>
    measure({
      url: url(ctx.service, '/api/admin/projects/bench-p1/features'),
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: () => {
        n += 1;
        return JSON.stringify({ name: `${prefix}-${n}`, type: 'release', description: 'bench' });
      },
      connections,
      durationS: ctx.durationS,
    });
  const many = await run(ctx.connections);
  const one = await run(1);
  return [
    ...loadRows(`create flag, ${ctx.connections} connections, one project`, many, ctx.bare, 5),
    ...loadRows('create flag, 1 connection', one, ctx.bare1, 5),
  ];
}

/** GET one flag with its strategies, constraints, variants, segments and tags. */
export async function getFlag(ctx: Context): Promise<Row[]> {
  const i = 7;
  const path = `/api/admin/projects/${projectOf(i, ctx.projects)}/features/${flagName(i)}`;
  const f = await measure({
    url: url(ctx.service, path),
    headers: auth,
    connections: ctx.connections,
    durationS: ctx.durationS,
  });
  return loadRows('get flag (GET …/features/:name)', f, ctx.bare);
}

/** The event log endpoints with the generated events in the table. */
export async function events(ctx: Context): Promise<Row[]> {
  const recent = await measure({
    url: url(ctx.service, '/api/admin/events'),
    headers: auth,
    connections: ctx.connections,
    durationS: ctx.durationS,
  });
  const perFlag = Math.round(ctx.events / ctx.flags);
  const flag = await measure({
    url: url(ctx.service, `/api/admin/events/${flagName(3)}`),
    headers: auth,
    connections: ctx.connections,
    durationS: ctx.durationS,
  });
  return [
    ...loadRows(`GET /api/admin/events (${ctx.events} in table)`, recent, ctx.bare, 20),
    ...loadRows(`GET /api/admin/events/:flag (${perFlag} events)`, flag, ctx.bare),
  ];
}

/** Restarts on the loaded database: spawn to "Listening on", against bare Fastify and bare Node. */
export async function startup(ctx: Context): Promise<Row[]> {
  const outside: number[] = [];
  const inside: number[] = [];
  const bareOutside: number[] = [];
  const bareInside: number[] = [];
  const node: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < ctx.restarts; i++) {
    const s = await startService(ctx.db.target);
    outside.push(s.spawnToReadyMs);
    inside.push(s.internalReadyMs ?? Number.NaN);
    await stopChild(s);
    const b = await startBare();
    bareOutside.push(b.spawnToReadyMs);
    bareInside.push(b.internalReadyMs ?? Number.NaN);
    await stopChild(b);
    node.push(await nodeBareStartMs());
    const p = await startBare(true);
    plain.push(p.spawnToReadyMs);
    await stopChild(p);
  }
  const range = (xs: number[]) => `min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))}`;
  ctx.log(`  service spawn→ready: ${outside.map(Math.round).join(', ')} ms`);
  const name = `start-up, existing database (median of ${ctx.restarts})`;
  return [
    {
      scenario: name,
      figure: 'spawn → "Listening on"',
      value: median(outside),
      baseline: median(bareOutside),
      unit: 'ms',
      target: 500,
      note: `${range(outside)}; baseline: bare Fastify under tsx`,
    },
    {
      scenario: name,
      figure: '"ready in" (in-process)',
      value: median(inside),
      baseline: median(bareInside),
      unit: 'ms',
      target: 500,
      note: range(inside),
    },
    {
      scenario: name,
      figure: 'node -e "" (spawn → exit)',
      value: median(node),
      unit: 'ms',
      note: 'what Node costs before any code',
    },
    {
      scenario: name,
      figure: 'bare Fastify, plain node (no tsx)',
      value: median(plain),
      unit: 'ms',
      note: 'spawn → listening; the tsx loader share is the difference to the baseline above',
    },
  ];
}

/** Idle RSS of a freshly started service and of the bare Fastify process, after a settle time. */
export async function idleRss(ctx: Context, settleMs = 3_000): Promise<Row[]> {
  const s = await startService(ctx.db.target);
  const b = await startBare();
  const p = await startBare(true);
  try {
    await new Promise((r) => setTimeout(r, settleMs));
    return [
      {
        scenario: 'idle RSS after start',
        figure: 'VmRSS',
        value: rssMb(s.pid),
        baseline: rssMb(b.pid),
        unit: 'MB',
        target: 100,
        note: `${settleMs / 1000} s after ready, no request served; baseline: bare Fastify under tsx`,
      },
      {
        scenario: 'idle RSS after start',
        figure: 'bare Fastify, plain node (no tsx)',
        value: rssMb(p.pid),
        unit: 'MB',
        note: 'the tsx loader share is the difference to the baseline above',
      },
    ];
  } finally {
    await stopChild(s);
    await stopChild(b);
    await stopChild(p);
  }
}
