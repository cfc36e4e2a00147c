/**
 * Configuration changes under load, at scale (issue: reads from memory, incremental snapshot).
 * The service on a scratch PostgreSQL database with the generated dataset; a writer turns random
 * flags on and off in `development` at a fixed rate through the admin API. Measured in the same
 * run: how long a change takes to reach the client API for a `development` SDK (write answered ->
 * the SDK endpoint shows it), and the 304 throughput of `production` SDKs (whose scope the writes
 * do not touch) next to their throughput without writes, and next to their throughput while the
 * same client sends as many admin reads instead (a control: what the requests and their sender
 * cost, everything sharing the machine's cores). The three kinds of window take turns over
 * `--rounds` (quiet/writes/control, writes/control/quiet, …), so that the machine's drift over the
 * run weighs on each alike. `--cores apart` (the default) keeps the service on a core of its own and
 * the load generator, the writer and the database's sessions on the others (as on separate
 * machines); `--cores shared` lets the kernel share all cores between them.
 *   npx tsx bench/scale.ts --flags 10000 --writes 100   (6 rounds of 5 s windows, 64 SDK connections)
 */
import { Agent, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { cpuMs, pin, pinSelfApart, REST_CPUS, SERVICE_CPU, sessionPinner } from './lib/cores.js';
import { flagName, loadDataset, projectOf } from './lib/dataset.js';
import { createPostgresDatabase, type Sql } from './lib/db.js';
import { measureApart, median, percentile } from './lib/measure.js';
import { ADMIN_TOKEN, startService, stopAll, stopChild } from './lib/service.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '10000' },
    writes: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '6' },
    cores: { type: 'string', default: 'apart' },
  },
});
const flags = Number(values.flags);
const writesPerSecond = Number(values.writes);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
if (values.cores !== 'apart' && values.cores !== 'shared') throw new Error('--cores: apart or shared');
// This process and what it starts (the load generator's children, the service until it is moved)
// run on the cores other than the service's.
const apart = values.cores === 'apart' && pinSelfApart();
if (values.cores === 'apart' && !apart)
  console.log('cannot pin processes to cores here (taskset, 2+ cores): cores shared');
let pinning: NodeJS.Timeout | undefined;
let sessions: Sql | undefined;

const db = await createPostgresDatabase('flagship_bench_scale');
try {
  const first = await startService(db.target);
  await stopChild(first);
  const sql = await db.connect();
  console.log(`loading ${flags} flags …`);
  await loadDataset(
    sql,
    { projects: 10, flags, strategiesPerEnv: 2, segments: 50, tags: 100, events: 1000 },
    () => {},
  );
  await sql.close();
  const service = await startService(db.target);
  // The database's sessions join the load generator's cores, checked every second (the service's
  // pool opens sessions as it needs them, and its listening session comes and goes).
  let moved: Awaited<ReturnType<typeof sessionPinner>>['state'] | undefined;
  if (apart) {
    pin(service.pid, String(SERVICE_CPU));
    sessions = await db.connect();
    const pinner = await sessionPinner(sessions);
    moved = pinner.state;
    pinning = setInterval(() => pinner.check().catch(() => {}), 1000);
  }
  const base = `http://127.0.0.1:${service.port}`;
  const admin = { authorization: ADMIN_TOKEN, 'content-type': 'application/json' };
  // node:http on kept-alive sockets, not fetch: the writer and its followers share the machine
  // with the service, and fetch cost several times the CPU per request.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = admin,
  ): Promise<{
    status: number;
    etag: string | undefined;
    json: { enabled?: unknown; secret?: unknown } | undefined;
  }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(base + path, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString();
          resolve({
            status,
            etag: res.headers.etag,
            json: (status === 200 || status === 201) && text ? JSON.parse(text) : undefined,
          });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const token = async (environment: string) =>
    (
      await call('POST', '/api/admin/api-tokens', {
        tokenName: `sdk-${environment}`,
        type: 'client',
        environment,
        projects: ['*'],
      })
    ).json?.secret as string;
  const [development, production] = [await token('development'), await token('production')];
  // The ETag of the plain answer, which is what the load below asks for (no Accept-Encoding).
  const productionEtag = (await call('GET', '/api/client/features', undefined, { authorization: production }))
    .etag!;
  // In a child process: autocannon here would delay the writer's timers and the followers' polls.
  const sdkLoad = () =>
    measureApart({
      url: `${base}/api/client/features`,
      headers: { authorization: production, 'if-none-match': productionEtag },
      connections,
      durationS: seconds,
    });

  // The writer: `writes` requests a second while `sending`, each for a random flag. `writes`: it
  // turns the flag on or off in development, and every tenth change is followed until a
  // development SDK sees it. `control`: it reads the flag through the admin API instead (the same
  // rate of admin requests from the same client, no configuration change), which tells what the
  // writes cost the SDKs beyond the requests themselves and the client sending them (the same
  // two cores run everything).
  let stop = false;
  let sending: 'writes' | 'control' | undefined;
  const propagation: number[] = [];
  let writes = 0;
  let failedWrites = 0;
  // Per flag, the last write sent to it: a follower whose flag was written again since its own
  // write stops (what the SDK shows is then the later write's to decide; waiting on would time
  // the next write that happens to set the followed value, seen once as a 36 s "propagation").
  let sent = 0;
  const lastWrite = new Map<string, number>();
  let overtaken = 0;
  const follow = async (name: string, enabled: boolean, answered: number, seq: number) => {
    while (!stop || performance.now() - answered < 5000) {
      if (lastWrite.get(name) !== seq) {
        overtaken += 1;
        return;
      }
      const res = await call('GET', `/api/client/features/${name}`, undefined, {
        authorization: development,
      });
      if (res.json?.enabled === enabled) {
        propagation.push(performance.now() - answered);
        return;
      }
      await sleep(50);
    }
  };
  const followers: Promise<void>[] = [];
  // Writes go out at the requested rate whatever their answer time (at most 50 in flight).
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const write = async () => {
    const i = 1 + Math.floor(Math.random() * flags);
    const name = flagName(i);
    const flagPath = `/api/admin/projects/${projectOf(i, 10)}/features/${name}`;
    inFlight += 1;
    if (sending === 'control') {
      const res = await call('GET', flagPath);
      inFlight -= 1;
      if (res.status !== 200) failedWrites += 1;
      return;
    }
    const enabled = Math.random() < 0.5;
    const seq = ++sent;
    lastWrite.set(name, seq);
    const res = await call('POST', `${flagPath}/environments/development/${enabled ? 'on' : 'off'}`);
    inFlight -= 1;
    writes += 1;
    if (res.status !== 200) failedWrites += 1;
    else if (writes % 10 === 0) followers.push(follow(name, enabled, performance.now(), seq));
  };
  let writingSeconds = 0;
  const writer = (async () => {
    while (!stop) {
      if (!sending) {
        await sleep(20);
        continue;
      }
      const started = performance.now();
      const counted = sending === 'writes';
      for (let n = 1; sending && !stop; n++) {
        if (inFlight < 50) pending.push(write());
        const due = started + (n * 1000) / writesPerSecond;
        if (due > performance.now()) await sleep(due - performance.now());
      }
      if (counted) writingSeconds += (performance.now() - started) / 1000;
    }
    await Promise.all(pending);
  })();

  const windows = { quiet: [] as number[], control: [] as number[], writes: [] as number[] };
  // The service's CPU time over each kind of window (the load generator's start and warm-up
  // included), as a share of the window's wall time, and how busy its core and the others were
  // during the timed runs: the service's core near saturation and the others with room say the
  // SDK figure is bound by the service, not by the load generator.
  const usage = () => ({ cpu: 0, wall: 0, core: { busy: 0, total: 0 }, rest: { busy: 0, total: 0 } });
  const busy = { quiet: usage(), control: usage(), writes: usage() };
  let otherDuringWrites = 0;
  const window = async (kind: keyof typeof windows) => {
    sending = kind === 'quiet' ? undefined : kind;
    if (sending) await sleep(1000);
    const [cpu, wall] = [cpuMs(service.pid), performance.now()];
    const figures = await sdkLoad();
    busy[kind].cpu += cpuMs(service.pid) - cpu;
    busy[kind].wall += performance.now() - wall;
    for (const ticks of figures.cores ?? []) {
      const sum = busy[kind][ticks.cpu === SERVICE_CPU ? 'core' : 'rest'];
      sum.busy += ticks.busy;
      sum.total += ticks.total;
    }
    sending = undefined;
    windows[kind].push(figures.rps);
    if (kind === 'writes') otherDuringWrites += figures.requests - (figures.statuses?.[304] ?? 0);
    // The requests still in flight settle before the next window.
    if (kind !== 'quiet') await sleep(500);
  };
  const kinds = ['quiet', 'writes', 'control'] as const;
  for (let round = 0; round < rounds; round++) {
    console.log(
      `round ${round + 1}: production SDKs without writes, with ${writesPerSecond} writes/s to development, with as many admin reads …`,
    );
    for (let k = 0; k < kinds.length; k++)
      await window(kinds[(k + round) % kinds.length] as keyof typeof windows);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [quiet, control, loaded] = [mean(windows.quiet), mean(windows.control), mean(windows.writes)];
  stop = true;
  await writer;
  await Promise.all(followers);
  await stopChild(service);

  const achieved = writes / writingSeconds;
  const perWindow = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
  console.log(
    `\n${flags} flags on PostgreSQL, ${writesPerSecond} writes/s requested (${achieved.toFixed(0)}/s achieved, ${failedWrites} failed writes or reads), ${connections} SDK connections, ${rounds} rounds of ${seconds} s windows, ${apart ? `the service on core ${SERVICE_CPU}, the rest on ${REST_CPUS} (database sessions moved: ${moved?.local ? `${moved.pinned}, not moved: ${moved.failed}` : 'none, the server is not this machine'})` : 'cores shared'}\n`,
  );
  console.log('| figure | value |');
  console.log('| --- | --- |');
  console.log(
    `| change -> development SDK, p50 / p99 (${propagation.length} followed, ${overtaken} overtaken by a later write to the flag) | ${percentile(propagation, 50).toFixed(0)} ms / ${percentile(propagation, 99).toFixed(0)} ms |`,
  );
  console.log(
    `| change -> development SDK, p90 / p95 / max | ${[90, 95, 100].map((p) => percentile(propagation, p).toFixed(0)).join(' / ')} ms |`,
  );
  const row = (label: string, kind: keyof typeof windows, value: number, note = '') =>
    console.log(`| ${label} | ${value.toFixed(0)} (${perWindow(windows[kind])})${note} |`);
  row('production SDK 304s/s without writes', 'quiet', quiet);
  row(
    'production SDK 304s/s during writes',
    'writes',
    loaded,
    `: **${((100 * loaded) / quiet).toFixed(0)} %** of without, ${((100 * loaded) / control).toFixed(0)} % of with admin reads`,
  );
  row(
    `production SDK 304s/s with ${writesPerSecond} admin reads/s instead (control)`,
    'control',
    control,
    `: ${((100 * control) / quiet).toFixed(0)} % of without`,
  );
  // The machine's speed drifts over a run (quiet windows of one run seen 27k-49k 304s/s): each
  // round's ratio sets its writes and control windows against the quiet window of the same
  // round, next to them in time, and the median of the rounds' ratios damps a round the machine
  // slowed in.
  const paired = (kind: 'writes' | 'control') =>
    windows[kind].map((value, round) => value / (windows.quiet[round] as number));
  for (const kind of ['writes', 'control'] as const) {
    const ratios = paired(kind);
    console.log(
      `| ${kind} / quiet of the same round: median (per round) | **${(100 * median(ratios)).toFixed(0)} %** (${ratios.map((r) => (100 * r).toFixed(0)).join(' / ')} %) |`,
    );
  }
  console.log(`| production SDK answers other than 304 during writes | ${otherDuringWrites} |`);
  const kindsInOrder = ['quiet', 'writes', 'control'] as const;
  const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`;
  const perKind = (value: (k: (typeof kindsInOrder)[number]) => string) =>
    kindsInOrder.map(value).join(' / ');
  console.log(
    `| service process CPU, of one core (quiet / writes / control; windows with the load's start) | ${perKind((k) => share(busy[k].cpu, busy[k].wall))} |`,
  );
  if (apart)
    for (const [label, part] of [
      [`core ${SERVICE_CPU}, the service's`, 'core'],
      ['the other cores', 'rest'],
    ] as const)
      console.log(
        `| ${label}: busy during the timed runs (quiet / writes / control) | ${perKind((k) => share(busy[k][part].busy, busy[k][part].total))} |`,
      );
} finally {
  clearInterval(pinning);
  await sessions?.close().catch(() => {});
  await stopAll();
  await db.dispose();
}
