/**
 * In-process engine benchmark (on demand, not in CI). See bench/README.md.
 *   npx tsx bench/engine.ts --flags 1000 --contexts 10000 --seconds 20
 *
 * Our compiled engine (src/evaluation) against unleash-client's own evaluation, in the same process
 * and the same run, on the same generated configuration and contexts. The SDK is bootstrapped with
 * the configuration (refreshInterval 0: it never fetches; metrics off; in-memory storage). Both
 * sides are first checked to give the same answers on a sample, then timed in interleaved chunks
 * (every side evaluates the same contexts, in rotating order) so that load from other processes on
 * the machine hits them alike.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import {
  compileSnapshot,
  decideFlag,
  type EvaluationContext,
  evaluateAll,
  evaluateFlag,
} from '../src/evaluation/index.js';
import { generateConfiguration, generateContexts } from './lib/engine-data.js';
import { machineFacts, markdownTable, printTable, type Row, writeSection } from './lib/report.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '1000' },
    segments: { type: 'string', default: '50' },
    contexts: { type: 'string', default: '10000' },
    /** Contexts (× every flag) compared answer by answer before timing. */
    check: { type: 'string', default: '100' },
    /** Wall-time budget of the timed part per side; stops earlier once every pair was evaluated. */
    seconds: { type: 'string', default: '20' },
    chunk: { type: 'string', default: '10' },
    results: { type: 'string', default: fileURLToPath(new URL('RESULTS.md', import.meta.url)) },
    'no-write': { type: 'boolean', default: false },
  },
});
const int = (name: 'flags' | 'segments' | 'contexts' | 'check' | 'seconds' | 'chunk', min = 1): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return n;
};
const FLAGS = int('flags');
const CONTEXTS = int('contexts');
const CHUNK = int('chunk');
const log = (m: string) => console.log(m);

const APP = 'bench-engine';
const config = generateConfiguration(FLAGS, int('segments'));
const contexts = generateContexts(CONTEXTS);
const names = config.features.map((f) => f.name);
// The SDK adds its static context (appName, environment 'default') per call; ours gets appName
// merged up front and defaults the environment to 'default' itself.
const ourContexts: EvaluationContext[] = contexts.map((c) => ({ ...c, appName: APP }));

const compileStarted = performance.now();
const snapshot = compileSnapshot(config);
const compileMs = performance.now() - compileStarted;
const env = { now: new Date(), random: Math.random };

const sdk = new Unleash({
  appName: APP,
  // Never contacted: refreshInterval 0 makes the fetcher a no-op; the bootstrap is the data.
  url: 'http://127.0.0.1:9/api/',
  refreshInterval: 0,
  disableMetrics: true,
  storageProvider: new InMemStorageProvider(),
  skipInstanceCountWarning: true,
  bootstrap: {
    data: config.features as never,
    segments: config.segments as never,
  },
});
sdk.on('error', (e) => log(`SDK error: ${e}`));

async function main(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('SDK not synchronized within 10 s')), 10_000);
    sdk.once('synchronized', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  if (sdk.getFeatureToggleDefinitions().length !== FLAGS) throw new Error('SDK bootstrap incomplete');

  // 1. Same answers on a sample (the comparison is only fair if both compute the same thing).
  const checkContexts = Math.min(int('check'), CONTEXTS);
  let checked = 0;
  let enabled = 0;
  let strategyVariants = 0;
  const disagreements: string[] = [];
  for (let c = 0; c < checkContexts; c++) {
    const context = contexts[c]!;
    for (const name of names) {
      const mine = evaluateFlag(snapshot, name, ourContexts[c]!, env)!;
      const fast = decideFlag(snapshot, name, ourContexts[c]!, env)!;
      if (
        fast.isEnabled !== mine.isEnabled ||
        JSON.stringify(fast.variant) !== JSON.stringify(mine.variant)
      ) {
        disagreements.push(`${name}: decideFlag differs from evaluateFlag`);
      }
      const isEnabled = sdk.isEnabled(name, context);
      const variant = sdk.getVariant(name, context);
      checked++;
      if (mine.isEnabled) enabled++;
      if (variant.name === 'blue' || variant.name === 'green') strategyVariants++;
      const same =
        isEnabled === mine.isEnabled &&
        variant.name === mine.variant.name &&
        variant.enabled === mine.variant.enabled &&
        variant.feature_enabled === mine.variant.feature_enabled &&
        JSON.stringify(variant.payload) === JSON.stringify(mine.variant.payload);
      if (!same && disagreements.length < 5) {
        disagreements.push(
          `${name} ${JSON.stringify(context)}: sdk ${isEnabled}/${variant.name} ours ${mine.isEnabled}/${mine.variant.name}`,
        );
      }
    }
  }
  if (disagreements.length > 0) throw new Error(`the engines disagree:\n${disagreements.join('\n')}`);
  log(
    `Agreement: ${checked} (flag, context) pairs identical (isEnabled, variant name/enabled/feature_enabled/payload); ` +
      `${((enabled / checked) * 100).toFixed(1)} % enabled, ${((strategyVariants / checked) * 100).toFixed(1)} % strategy variants.`,
  );

  // 2. Timed, interleaved: the same chunk of contexts × every flag for each side in turn.
  type Side = { label: string; run: (from: number, to: number) => number };
  const sides: Side[] = [
    {
      label: 'ours: evaluateFlag per pair',
      run: (from, to) => {
        let n = 0;
        for (let c = from; c < to; c++) {
          const context = ourContexts[c]!;
          for (const name of names) {
            const e = evaluateFlag(snapshot, name, context, env)!;
            if (e.isEnabled) n++;
            if (e.variant.enabled) n++;
          }
        }
        return n;
      },
    },
    {
      label: 'ours: evaluateAll per context',
      run: (from, to) => {
        let n = 0;
        for (let c = from; c < to; c++) {
          for (const e of evaluateAll(snapshot, ourContexts[c]!, env)) {
            if (e.isEnabled) n++;
            if (e.variant.enabled) n++;
          }
        }
        return n;
      },
    },
    {
      label: 'SDK: isEnabled + getVariant per pair',
      run: (from, to) => {
        let n = 0;
        for (let c = from; c < to; c++) {
          const context = contexts[c]!;
          for (const name of names) {
            if (sdk.isEnabled(name, context)) n++;
            if (sdk.getVariant(name, context).enabled) n++;
          }
        }
        return n;
      },
    },
    {
      label: 'ours: decideFlag per pair (SDK-style, no report)',
      run: (from, to) => {
        let n = 0;
        for (let c = from; c < to; c++) {
          const context = ourContexts[c]!;
          for (const name of names) {
            const d = decideFlag(snapshot, name, context, env)!;
            if (d.isEnabled) n++;
            if (d.variant.enabled) n++;
          }
        }
        return n;
      },
    },
    {
      label: 'SDK: getVariant only per pair',
      run: (from, to) => {
        let n = 0;
        for (let c = from; c < to; c++) {
          const context = contexts[c]!;
          for (const name of names) if (sdk.getVariant(name, context).enabled) n++;
        }
        return n;
      },
    },
  ];
  // Warm-up (JIT) on contexts outside the timed rotation start.
  for (const side of sides) side.run(CONTEXTS - Math.min(CONTEXTS, 20), CONTEXTS);

  const budgetMs = int('seconds') * 1000 * sides.length;
  const totals = sides.map(() => ({ wallMs: 0, cpuMs: 0, pairs: 0, checksum: 0 }));
  const started = performance.now();
  let chunks = 0;
  for (let from = 0; from < CONTEXTS && performance.now() - started < budgetMs; from += CHUNK) {
    const to = Math.min(from + CHUNK, CONTEXTS);
    for (let k = 0; k < sides.length; k++) {
      const i = (k + chunks) % sides.length;
      const cpu = process.cpuUsage();
      const t = performance.now();
      totals[i]!.checksum += sides[i]!.run(from, to);
      totals[i]!.wallMs += performance.now() - t;
      const used = process.cpuUsage(cpu);
      totals[i]!.cpuMs += (used.user + used.system) / 1000;
      totals[i]!.pairs += (to - from) * FLAGS;
    }
    chunks++;
  }
  const [flagT, allT, sdkT, decideT, sdkVarT] = totals as [
    (typeof totals)[0],
    (typeof totals)[0],
    (typeof totals)[0],
    (typeof totals)[0],
    (typeof totals)[0],
  ];
  if (
    flagT.checksum !== allT.checksum ||
    flagT.checksum !== sdkT.checksum ||
    flagT.checksum !== decideT.checksum
  ) {
    throw new Error(`checksums differ: ${totals.map((t) => t.checksum).join(', ')}`);
  }
  const pairs = flagT.pairs;
  const coveredContexts = pairs / FLAGS;
  const ns = (t: (typeof totals)[0], kind: 'wallMs' | 'cpuMs') => (t[kind] * 1e6) / t.pairs;
  for (const [i, t] of totals.entries()) {
    log(
      `  ${sides[i]!.label}: ${t.pairs} pairs, ${ns(t, 'wallMs').toFixed(0)} ns wall, ${ns(t, 'cpuMs').toFixed(0)} ns CPU per evaluation`,
    );
  }

  const name = `${FLAGS} flags × ${coveredContexts} contexts`;
  const rows: Row[] = [
    {
      scenario: `decideFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'wall time per (flag, context)',
      value: ns(decideT, 'wallMs'),
      baseline: ns(sdkT, 'wallMs'),
      unit: 'ns',
      note: 'the SDK-style path: short-circuits, builds no report',
    },
    {
      scenario: `decideFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'speed-up (SDK wall / ours)',
      value: ns(sdkT, 'wallMs') / ns(decideT, 'wallMs'),
      unit: '×',
      target: 3,
      lowerIsBetter: false,
      note: `CPU-time speed-up ${(ns(sdkT, 'cpuMs') / ns(decideT, 'cpuMs')).toFixed(2)}×`,
    },
    {
      scenario: `evaluateFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'wall time per (flag, context)',
      value: ns(flagT, 'wallMs'),
      baseline: ns(sdkT, 'wallMs'),
      unit: 'ns',
    },
    {
      scenario: `evaluateFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'CPU time per (flag, context)',
      value: ns(flagT, 'cpuMs'),
      baseline: ns(sdkT, 'cpuMs'),
      unit: 'ns',
      note: 'process CPU (user + system, GC threads included)',
    },
    {
      scenario: `evaluateFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'throughput',
      value: (flagT.pairs / flagT.wallMs) * 1000,
      baseline: (sdkT.pairs / sdkT.wallMs) * 1000,
      unit: 'ops/s',
      lowerIsBetter: false,
    },
    {
      scenario: `evaluateFlag vs SDK isEnabled + getVariant, ${name}`,
      figure: 'speed-up (SDK wall / ours)',
      value: ns(sdkT, 'wallMs') / ns(flagT, 'wallMs'),
      unit: '×',
      target: 3,
      lowerIsBetter: false,
      note: `CPU-time speed-up ${(ns(sdkT, 'cpuMs') / ns(flagT, 'cpuMs')).toFixed(2)}×`,
    },
    {
      scenario: `evaluateAll per context vs SDK isEnabled + getVariant, ${name}`,
      figure: 'wall time per (flag, context)',
      value: ns(allT, 'wallMs'),
      baseline: ns(sdkT, 'wallMs'),
      unit: 'ns',
    },
    {
      scenario: `evaluateAll per context vs SDK isEnabled + getVariant, ${name}`,
      figure: 'speed-up (SDK wall / ours)',
      value: ns(sdkT, 'wallMs') / ns(allT, 'wallMs'),
      unit: '×',
      target: 3,
      lowerIsBetter: false,
      note: `CPU-time speed-up ${(ns(sdkT, 'cpuMs') / ns(allT, 'cpuMs')).toFixed(2)}×; the context is prepared once per context`,
    },
    {
      scenario: `evaluateFlag vs SDK getVariant alone, ${name}`,
      figure: 'speed-up (SDK wall / ours)',
      value: ns(sdkVarT, 'wallMs') / ns(flagT, 'wallMs'),
      unit: '×',
      note: `for information: getVariant alone also answers feature_enabled (one SDK evaluation instead of two); SDK ${ns(sdkVarT, 'wallMs').toFixed(0)} ns`,
    },
    {
      scenario: 'agreement before timing',
      figure: 'pairs compared / disagreements',
      value: checked,
      unit: 'pairs',
      note: `0 disagreements on isEnabled and variant name, enabled, feature_enabled, payload; ${((enabled / checked) * 100).toFixed(1)} % enabled`,
    },
  ];
  log('');
  printTable(rows);
  const notes = [
    `Configuration: ${FLAGS} flags (90 % enabled), each with flexibleRollout (stickiness default/userId/sessionId, a segment), userWithId and default strategies, 2 constraints per strategy drawn from IN/NOT_IN, STR_STARTS_WITH/ENDS_WITH/CONTAINS, NUM_*, SEMVER_*, DATE_AFTER/BEFORE (15 % inverted), strategy variants on half the rollout and userWithId strategies, flag variants with an override; ${values.segments} segments. Seeded PRNG, so every run evaluates the same data.`,
    `${CONTEXTS} contexts (userId, sessionId, properties region/num/version); the timed part went through ${coveredContexts} of them × every flag for each side (${chunks} interleaved chunks of ${CHUNK} contexts, rotating order, stopped after ${int('seconds')} s per side or at the end of the contexts) after a warm-up on 20 contexts.`,
    `Compiling the snapshot: ${compileMs.toFixed(0)} ms. SDK: unleash-client ${sdkVersion()} bootstrapped with the same features and segments, refreshInterval 0 (never fetches), metrics off.`,
    'Wall time suffers from other processes on the machine; CPU time is this process only. Both sides run interleaved, so the ratios are the steadier figure.',
  ];
  if (!values['no-write']) {
    writeSection(String(values.results), 'engine', [
      '### In-process engine vs unleash-client',
      '',
      `Run ${new Date().toISOString().replace('T', ' ').slice(0, 16)} on ${machineFacts()}.`,
      `Command: \`npx tsx bench/engine.ts ${process.argv.slice(2).join(' ')}\`.`,
      '',
      markdownTable(rows),
      '',
      ...notes.map((n) => `- ${n}`),
    ]);
    log(`\nWritten to ${values.results}`);
  }
}

function sdkVersion(): string {
  const path = fileURLToPath(new URL('../node_modules/unleash-client/package.json', import.meta.url));
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  sdk.destroy();
}
