/**
 * How long a configuration change takes to reach what SDKs are served, at scale (issue: reads from
 * memory, incremental snapshot). In process, on a scratch PostgreSQL database with the generated
 * dataset: after one strategy change in `development`, the time until the new revision's
 * development client payload is ready, by reading the whole configuration again (the baseline,
 * what every change cost before) and by applying the change incrementally (what the service does
 * now); and what a `production` SDK's payload costs after that change (carried over: nothing).
 *   npx tsx bench/snapshot.ts --flags 10000 --changes 50
 */
import { parseArgs } from 'node:util';
import { clientFeatures } from '../src/features/client-api/index.js';
import { ConfigurationCache } from '../src/features/snapshot/index.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';
import { flagName, loadDataset } from './lib/dataset.js';
import { createPostgresDatabase } from './lib/db.js';

const { values } = parseArgs({
  options: {
    flags: { type: 'string', default: '10000' },
    changes: { type: 'string', default: '50' },
  },
});
const flags = Number(values.flags);
const changes = Number(values.changes);
/** A client token's principal for one environment, all projects. */
const sdk = (environment: string) => ({
  name: 'bench',
  userId: 0,
  kind: 'client-token' as const,
  grants: [],
  scope: { projects: ['*'], environment },
});
const SPEC = '5.1.0';

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const bench = await createPostgresDatabase('flagship_bench_snapshot');
try {
  const url = bench.target.env.DATABASE_URL!;
  const database = await openDatabase({ url, poolSize: 4 });
  await migrate(database);
  const sql = await bench.connect();
  console.log(`loading ${flags} flags …`);
  await loadDataset(
    sql,
    { projects: 20, flags, strategiesPerEnv: 2, segments: 50, tags: 100, events: 1000 },
    () => {},
  );
  const cache = new ConfigurationCache(database, 3_600_000);
  await cache.get({ fresh: true });
  await clientFeatures(cache, sdk('development'), SPEC);
  await clientFeatures(cache, sdk('production'), SPEC);

  const full: number[] = [];
  const incremental: number[] = [];
  const production: number[] = [];
  for (let i = 0; i < changes; i++) {
    const flag = flagName(1 + ((i * 7919) % flags));
    // One write as the service makes it: the strategy row and its event, in one transaction.
    await sql.query(`BEGIN;
      UPDATE feature_strategies SET parameters = jsonb_set(parameters, '{rollout}', to_jsonb('${i % 100}'::text))
        WHERE feature_name = '${flag}' AND environment = 'development';
      INSERT INTO events (type, created_by, feature_name, project, environment)
        VALUES ('feature-strategy-update', 'bench', '${flag}', 'bench', 'development');
      COMMIT;`);
    // Baseline: a cache that has nothing yet reads the whole configuration, as every change did.
    let started = performance.now();
    const cold = new ConfigurationCache(database, 3_600_000);
    await clientFeatures(cold, sdk('development'), SPEC);
    full.push(performance.now() - started);

    started = performance.now();
    await cache.get({ fresh: true });
    await clientFeatures(cache, sdk('development'), SPEC);
    incremental.push(performance.now() - started);

    started = performance.now();
    await clientFeatures(cache, sdk('production'), SPEC);
    production.push(performance.now() - started);
  }
  const row = (label: string, samples: number[]) =>
    `| ${label} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 99).toFixed(1)} | ${(percentile(full, 50) / Math.max(percentile(samples, 50), 0.001)).toFixed(1)}× |`;
  console.log(`\n${flags} flags, ${changes} strategy changes in development (PostgreSQL, in process; ms)\n`);
  console.log('| path | p50 | p99 | faster than a full read (p50) |');
  console.log('| --- | --- | --- | --- |');
  console.log(row('full read + development payload (baseline)', full));
  console.log(row('incremental change + development payload', incremental));
  console.log(row('production payload after the change', production));
  console.log(`\nreads: ${cache.reads.incremental} incremental, ${cache.reads.full} full`);
  await sql.close();
  await database.close();
} finally {
  await bench.dispose();
}
