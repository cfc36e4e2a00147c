/**
 * `measure` in a process of its own (see `measureApart`): the options as JSON in argv[2] (no
 * per-request functions), the figures as JSON on stdout, with each core's ticks (busy and in all)
 * over the timed run.
 */
import { coreTicks } from './cores.js';
import { type LoadOptions, measure, WARMUP_S } from './measure.js';

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const warm = await measure({ ...options, durationS: WARMUP_S }, 0);
const before = coreTicks();
const figures = await measure(options, 0);
const cores = coreTicks().map((after) => {
  const start = before.find((b) => b.cpu === after.cpu);
  return { cpu: after.cpu, busy: after.busy - (start?.busy ?? 0), total: after.total - (start?.total ?? 0) };
});
process.stdout.write(
  JSON.stringify({ ...figures, warmupRequests: warm.requests, samples: undefined, cores }),
);
