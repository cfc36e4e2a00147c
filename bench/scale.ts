/**
 * Configuration changes under load, at scale (issue: reads from memory, incremental snapshot).
 * The service on a scratch PostgreSQL database with the generated dataset; a writer turns random
 * flags on and off in `development` at a fixed rate through the admin API. Measured in the same
 * run: how long a change takes to reach the client API for a `development` SDK (write answered ->
 * the SDK endpoint shows it), and the 304 throughput of `production` SDKs (whose scope the writes
 * do not touch) next to their throughput without writes. Windows with and without writes
 * alternate (`--rounds`, in the order quiet/writes, writes/quiet, …), so that the machine's drift
 * over the run weighs on both sides alike.
 *   npx tsx bench/scale.ts --flags 10000 --writes 100 --seconds 10 --rounds 3
 */
import { Agent, request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { flagName, loadDataset, projectOf } from './lib/dataset.js';
import { createPostgresDatabase } from './lib/db.js';
import { measureApart, percentile } from './lib/measure.js';
import { ADMIN_TOKEN, startService, stopAll, stopChild } from './lib/service.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '10000' },
    writes: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
  },
});
const flags = Number(values.flags);
const writesPerSecond = Number(values.writes);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  // The writer: `writes` changes a second while `writing`, each to a random flag; every tenth is
  // followed until a development SDK sees it.
  let stop = false;
  let writing = false;
  const propagation: number[] = [];
  let writes = 0;
  let failedWrites = 0;
  const follow = async (name: string, enabled: boolean, answered: number) => {
    while (!stop || performance.now() - answered < 5000) {
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
    const enabled = Math.random() < 0.5;
    const path = `/api/admin/projects/${projectOf(i, 10)}/features/${name}/environments/development/${enabled ? 'on' : 'off'}`;
    inFlight += 1;
    const res = await call('POST', path);
    inFlight -= 1;
    writes += 1;
    if (res.status !== 200) failedWrites += 1;
    else if (writes % 10 === 0) followers.push(follow(name, enabled, performance.now()));
  };
  let writingSeconds = 0;
  const writer = (async () => {
    while (!stop) {
      if (!writing) {
        await sleep(20);
        continue;
      }
      const started = performance.now();
      for (let n = 1; writing && !stop; n++) {
        if (inFlight < 50) pending.push(write());
        const due = started + (n * 1000) / writesPerSecond;
        if (due > performance.now()) await sleep(due - performance.now());
      }
      writingSeconds += (performance.now() - started) / 1000;
    }
    await Promise.all(pending);
  })();

  const quiet = { rps: 0, windows: [] as number[] };
  const loaded = { rps: 0, windows: [] as number[], other: 0 };
  const quietWindow = async () => {
    const figures = await sdkLoad();
    quiet.windows.push(figures.rps);
  };
  const writesWindow = async () => {
    writing = true;
    await sleep(1000);
    const figures = await sdkLoad();
    writing = false;
    loaded.windows.push(figures.rps);
    loaded.other += figures.requests - (figures.statuses?.[304] ?? 0);
    // The changes still in flight settle before the next quiet window.
    await sleep(500);
  };
  for (let round = 0; round < rounds; round++) {
    console.log(
      `round ${round + 1}: production SDKs with and without ${writesPerSecond} writes/s to development …`,
    );
    if (round % 2 === 0) {
      await quietWindow();
      await writesWindow();
    } else {
      await writesWindow();
      await quietWindow();
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  quiet.rps = mean(quiet.windows);
  loaded.rps = mean(loaded.windows);
  stop = true;
  await writer;
  await Promise.all(followers);
  await stopChild(service);

  const achieved = writes / writingSeconds;
  const perWindow = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
  console.log(
    `\n${flags} flags on PostgreSQL, ${writesPerSecond} writes/s requested (${achieved.toFixed(0)}/s achieved, ${failedWrites} failed), ${connections} SDK connections, ${rounds} rounds of ${seconds} s windows\n`,
  );
  console.log('| figure | value |');
  console.log('| --- | --- |');
  console.log(
    `| change -> development SDK, p50 / p99 (${propagation.length} followed) | ${percentile(propagation, 50).toFixed(0)} ms / ${percentile(propagation, 99).toFixed(0)} ms |`,
  );
  console.log(
    `| change -> development SDK, p90 / p95 / max | ${[90, 95, 100].map((p) => percentile(propagation, p).toFixed(0)).join(' / ')} ms |`,
  );
  console.log(
    `| production SDK 304s/s without writes | ${quiet.rps.toFixed(0)} (${perWindow(quiet.windows)}) |`,
  );
  console.log(
    `| production SDK 304s/s during writes | ${loaded.rps.toFixed(0)} (${perWindow(loaded.windows)}): ${((100 * loaded.rps) / quiet.rps).toFixed(0)} % |`,
  );
  console.log(`| production SDK answers other than 304 during writes | ${loaded.other} |`);
} finally {
  await stopAll();
  await db.dispose();
}
