/**
 * Signal intake (issue 48) on PostgreSQL: an external system posting `--rate` signals a second
 * (open loop, autocannon's overall rate) to a signal endpoint that an action set listens to (one
 * signal in 100 matches its filter and turns a flag off or on), while SDKs poll the client API.
 * Reports the intake rate reached, the polls' throughput beside the same polls measured on a quiet
 * service in the same run, and whether the actions job kept up (signals left unprocessed 3 s after
 * the load). Targets: ≥ 500 signals/s taken while the polls keep ≥ 90 % of their quiet throughput.
 * Also the service's own CPU time per signal and per poll (each alone, the service on its own core,
 * ADR 0020): what the intake takes of the service's core, robust where the throughputs swing
 * with the machine.
 * Baseline in the same run: the polls beside the same rate of the cheapest request the service
 * answers (`GET /health`), which is what any 500 requests a second cost the polls on this machine
 * (the generators, the service and PostgreSQL share its cores); the intake's own cost is the rest.
 *   npx tsx bench/signals.ts                  # PostgreSQL (BENCH_PG_URL), ~1 min
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuMs, pin, pinSelfApart, SERVICE_CPU, sessionPinner } from './lib/cores.js';
import { loadDataset } from './lib/dataset.js';
import { createPostgresDatabase } from './lib/db.js';
import { type LoadFigures, measureApart } from './lib/measure.js';
import { machineFacts, writeSection } from './lib/report.js';
import { ADMIN_TOKEN, type Child, ROOT, startService, stopAll, stopChild } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
    pollers: { type: 'string', default: '4' },
    flags: { type: 'string', default: '200' },
    cores: { type: 'string', default: 'apart' },
    'no-write': { type: 'boolean', default: false },
  },
});
// ADR 0020: the service on a core of its own, the generators and PostgreSQL's sessions on the
// others, so the polls measure what the service has left beside the intake, not how the kernel
// shares two cores among the service, PostgreSQL and the generators.
const apart = args.cores === 'apart' && pinSelfApart();
if (args.cores === 'apart' && !apart) console.log('cannot pin processes to cores here: cores shared');
const RATE = Number(args.rate);
const DURATION = Number(args.duration);
const ROUNDS = Number(args.rounds);
const POLLERS = Number(args.pollers);
const FLAGS = Number(args.flags);
const log = (m: string) => console.log(m);

async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: ADMIN_TOKEN,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * POSTs signals at `rate` a second for `durationS`; every hundredth says `critical`. Without a
 * token, GETs `url` at that rate instead (the baseline).
 */
function intake(url: string, token: string | undefined, rate: number, durationS: number) {
  let n = 0;
  return new Promise<{
    sent: number;
    accepted: number;
    non2xx: number;
    errors: number;
    p99: number;
    seconds: number;
  }>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 16,
        overallRate: rate,
        duration: durationS,
        ...(token !== undefined && {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          requests: [
            {
              setupRequest: (req) => {
                n += 1;
                const severity = n % 100 === 0 ? 'critical' : 'warning';
                return { ...req, body: JSON.stringify({ alert: { severity, service: 'checkout', n } }) };
              },
            },
          ],
        }),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          sent: result.requests.sent,
          accepted: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          p99: result.latency.p99,
          seconds: result.duration,
        });
      },
    );
  });
}

async function main() {
  const db = await createPostgresDatabase('flagship_signalbench');
  const children: Child[] = [];
  try {
    log(`signal bench: ${db.describe}, ${RATE} signals/s for ${DURATION} s, ${POLLERS} SDK connection(s)`);
    const service = await startService(db.target);
    children.push(service);
    const base = `http://127.0.0.1:${service.port}`;
    const sql = await db.connect();
    let pinning: NodeJS.Timeout | undefined;
    if (apart) {
      pin(service.pid, String(SERVICE_CPU));
      const pinner = await sessionPinner(sql);
      pinning = setInterval(() => pinner.check().catch(() => {}), 1000);
    }
    await loadDataset(
      sql,
      { projects: 1, flags: FLAGS, strategiesPerEnv: 2, segments: 5, tags: 5, events: 1000 },
      log,
    );
    const project = 'bench-p1';
    const flag = 'bench-flag-1';
    const client = await api(base, 'POST', '/api/admin/api-tokens', {
      type: 'client',
      tokenName: 'bench-client',
      environment: 'development',
      projects: ['*'],
    });
    const endpoint = await api(base, 'POST', '/api/admin/signal-endpoints', { name: 'bench-alerts' });
    const token = await api(base, 'POST', `/api/admin/signal-endpoints/${endpoint.id}/tokens`, {
      name: 'apm',
    });
    const bot = await api(base, 'POST', '/api/admin/service-account', {
      username: 'bench-bot',
      name: 'Bench bot',
      rootRole: 'Admin',
    });
    for (const [i, action] of ['TOGGLE_FEATURE_OFF', 'TOGGLE_FEATURE_ON'].entries()) {
      await api(base, 'POST', `/api/admin/projects/${project}/actions`, {
        name: `bench ${i}`,
        actorId: bot.id,
        match: {
          source: 'signal-endpoint',
          sourceId: endpoint.id,
          payload: { 'alert.severity': { operator: 'IN', values: ['critical'] } },
        },
        actions: [
          {
            action,
            sortOrder: 1,
            executionParams: { project, environment: 'development', featureName: flag },
          },
        ],
      });
    }

    // The polls' generator runs in its own process: in this one, the intake's generator would
    // take its event loop's time, and the polls would fall by what the generator lost.
    const polls = (durationS: number): Promise<LoadFigures> =>
      measureApart({
        url: `${base}/api/client/features`,
        headers: { authorization: client.secret, 'unleash-client-spec': '5.2.0' },
        connections: POLLERS,
        durationS,
      });
    // Rounds interleaved (quiet, beside /health, under intake), so warm-up and the machine's
    // drift fall on all three alike; each figure is the median round by throughput.
    type Round = {
      quiet: LoadFigures;
      floor: LoadFigures;
      busy: LoadFigures;
      taken: Awaited<ReturnType<typeof intake>>;
    };
    const rounds: Round[] = [];
    const cpu: { perSignal: number; perPoll: number }[] = [];
    await polls(2); // warm-up, not counted
    for (let r = 0; r < ROUNDS; r++) {
      const quiet = await polls(DURATION);
      const [floor] = await Promise.all([
        polls(DURATION),
        intake(`${base}/health`, undefined, RATE, DURATION + 3),
      ]);
      const [busy, taken] = await Promise.all([
        polls(DURATION),
        intake(`${base}/api/signal-endpoint/bench-alerts`, token.token, RATE, DURATION + 3),
      ]);
      // The service's own CPU time for the intake alone (its requests and the actions job):
      // robust where the throughputs above swing with the machine, and what the intake takes of
      // the service's core whatever else runs.
      const cpuBefore = cpuMs(service.pid);
      const alone = await intake(`${base}/api/signal-endpoint/bench-alerts`, token.token, RATE, DURATION);
      await new Promise((r) => setTimeout(r, 1500)); // the job's last round of those signals
      const cpuPerSignal = (cpuMs(service.pid) - cpuBefore) / alone.accepted;
      const pollsBefore = cpuMs(service.pid);
      const pollsAlone = await polls(DURATION);
      const cpuPerPoll =
        (cpuMs(service.pid) - pollsBefore) / (pollsAlone.requests + (pollsAlone.warmupRequests ?? 0));
      cpu.push({ perSignal: cpuPerSignal, perPoll: cpuPerPoll });
      rounds.push({ quiet, floor, busy, taken });
      log(
        `round ${r + 1}: service CPU ${(1000 * cpuPerSignal).toFixed(0)} µs a signal, ${(1000 * cpuPerPoll).toFixed(0)} µs a poll; polls quiet ${Math.round(quiet.rps)} req/s, beside ${RATE} GET /health/s ${Math.round(floor.rps)}, under intake ${Math.round(busy.rps)} (${((100 * busy.rps) / quiet.rps).toFixed(1)} % of quiet); intake ${Math.round(taken.accepted / taken.seconds)} signals/s accepted (${taken.non2xx} non-2xx, ${taken.errors} errors, p99 ${taken.p99} ms)`,
      );
    }
    const median = (pick: (r: Round) => LoadFigures) =>
      rounds.map(pick).sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)] as LoadFigures;
    const quiet = median((r) => r.quiet);
    const floor = median((r) => r.floor);
    const busy = median((r) => r.busy);
    const taken = {
      accepted: rounds.reduce((n, r) => n + r.taken.accepted, 0),
      seconds: rounds.reduce((n, r) => n + r.taken.seconds, 0),
      non2xx: rounds.reduce((n, r) => n + r.taken.non2xx, 0),
      errors: rounds.reduce((n, r) => n + r.taken.errors, 0),
      p99: Math.max(...rounds.map((r) => r.taken.p99)),
    };
    const reached = taken.accepted / taken.seconds;
    const mid = <T>(xs: T[], by: (x: T) => number) =>
      [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)] as T;
    const perSignal = mid(cpu, (c) => c.perSignal).perSignal;
    const perPoll = mid(cpu, (c) => c.perPoll).perPoll;
    // Of one core (1,000 ms of CPU a second), what the intake at RATE leaves the polls.
    const coreLeft = 1 - (RATE * perSignal) / 1000;
    const lowest = Math.min(...rounds.map((r) => r.quiet.rps));
    const highest = Math.max(...rounds.map((r) => r.quiet.rps));
    const swing = highest / lowest;
    const count = async (query: string) => Number((await sql.query<{ n: string }>(query))[0]?.n);
    const left = () => count('SELECT count(*) AS n FROM signals WHERE processed_at IS NULL');
    const leftAtEnd = await left();
    await new Promise((r) => setTimeout(r, 3000));
    const leftAfter = await left();
    const runs = await count('SELECT count(*) AS n FROM action_set_events');
    log(`unprocessed signals at the end: ${leftAtEnd}, 3 s later: ${leftAfter}; action set runs: ${runs}`);
    clearInterval(pinning);
    await sql.close();
    await stopChild(service);

    const share = busy.rps / quiet.rps;
    const floorShare = floor.rps / quiet.rps;
    const lines = [
      `### Signal intake beside SDK polls, PostgreSQL (${new Date().toISOString().slice(0, 10)})`,
      `${machineFacts()}; ${apart ? 'the service on a core of its own, the generators and PostgreSQL on the other (ADR 0020)' : 'cores shared'}. \`npx tsx bench/signals.ts\`: ${FLAGS} flags; an external system posts ${RATE} signals/s `,
      `(open loop, 16 connections) for ${DURATION + 3} s to an endpoint two action sets listen to (one signal in 100 `,
      `matches and turns a flag off, then on); ${POLLERS} SDK connection(s) poll \`/api/client/features\` meanwhile, `,
      `and alone (${ROUNDS} rounds interleaved, ${DURATION} s each after a 2 s warm-up, the generators running the whole time; the median round of each). Targets: ≥ 500 signals/s taken `,
      `(${RATE}/s offered, ${reached.toFixed(1)}/s accepted over the run with its ramp, ${taken.non2xx + taken.errors} refused: ${taken.non2xx + taken.errors === 0 && RATE >= 500 && reached >= 0.99 * RATE ? 'met' : 'NOT met'}); polls keep ≥ 90 % of quiet throughput `,
      `(${(100 * share).toFixed(1)} %: ${share >= 0.9 ? 'met' : 'NOT met'}${swing > 1.3 ? `; but the rounds' quiet polls ranged ${Math.round(lowest)}-${Math.round(highest)} req/s, so on this machine the throughput ratios are noise: read the CPU time below` : ''}). Baseline: beside the same rate of `,
      `\`GET /health\` (the cheapest request), the polls keep ${(100 * floorShare).toFixed(1)} %; relative to that, `,
      `under intake ${((100 * busy.rps) / floor.rps).toFixed(1)} %. By the service's own CPU time (the intake alone, then the polls `,
      `alone; median round): ${(1000 * perSignal).toFixed(0)} µs a signal (request and job), ${(1000 * perPoll).toFixed(0)} µs a poll, so ${RATE} signals/s `,
      `take ${(100 * (1 - coreLeft)).toFixed(1)} % of a core and leave the polls ${(100 * coreLeft).toFixed(1)} % of what the service can serve on it `,
      `(${coreLeft >= 0.9 ? 'met' : 'NOT met'} by this measure).`,
      '',
      '| figure | value |',
      '| --- | --- |',
      `| polls alone | ${Math.round(quiet.rps)} req/s, p50 ${quiet.p50.toFixed(2)} ms, p99 ${quiet.p99.toFixed(2)} ms |`,
      `| polls beside ${RATE} GET /health/s | ${Math.round(floor.rps)} req/s, p50 ${floor.p50.toFixed(2)} ms, p99 ${floor.p99.toFixed(2)} ms |`,
      `| polls under intake | ${Math.round(busy.rps)} req/s, p50 ${busy.p50.toFixed(2)} ms, p99 ${busy.p99.toFixed(2)} ms |`,
      `| signals accepted (all rounds) | ${taken.accepted} in ${taken.seconds.toFixed(1)} s (${taken.non2xx} non-2xx, ${taken.errors} errors), p99 ${taken.p99} ms |`,
      `| unprocessed at the end / 3 s later | ${leftAtEnd} / ${leftAfter} |`,
      `| action set runs | ${runs} |`,
      '',
      '| round | polls quiet | beside /health | under intake | signals/s | service µs/signal | service µs/poll |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rounds.map(
        (r, i) =>
          `| ${i + 1} | ${Math.round(r.quiet.rps)} | ${Math.round(r.floor.rps)} | ${Math.round(r.busy.rps)} | ${Math.round(r.taken.accepted / r.taken.seconds)} | ${(1000 * (cpu[i]?.perSignal ?? 0)).toFixed(0)} | ${(1000 * (cpu[i]?.perPoll ?? 0)).toFixed(0)} |`,
      ),
    ];
    if (!args['no-write']) writeSection(join(ROOT, 'bench/RESULTS.md'), 'signals-postgres', lines);
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
