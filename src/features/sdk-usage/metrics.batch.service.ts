import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import { noteUnloggedChange } from '../events/index.js';
import { lockFlagsInOrder } from '../flag-rows/index.js';
import { markFlagsSeen } from '../flags/index.js';
import {
  addCounts,
  addVariantCounts,
  type CountRow,
  type InstanceRow,
  recordUnknown,
  touchInstances,
  type UnknownRow,
  type VariantRow,
} from './metrics.batch.store.js';
import { existingFlagNames } from './metrics.store.js';
import { type Registration, upsertRegistration } from './registrations.store.js';

/** One metrics POST of an SDK, as the batch takes it. */
export interface MetricsReport {
  appName: string;
  environment: string;
  /** Backend SDKs name their instance; the instance is then seen (frontend SDKs: undefined). */
  instanceId?: string;
  clientIp?: string;
  sdkType: 'frontend' | null;
  bucket: {
    start: string;
    toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }>;
  };
}

/** Flags counted per report at most, and variants per flag. */
const FLAGS_PER_REPORT = 10_000;
const VARIANTS_PER_FLAG = 100;
/** Unknown names kept per application and environment in one batch. */
const UNKNOWN_PER_APP = 100;
/** Pending rows that make a batch write at once instead of waiting for its interval. */
const FLUSH_AT_ROWS = 50_000;
/** Pending rows past which reports are dropped while the database cannot take them. */
const DROP_AT_ROWS = 500_000;

const key = (...parts: string[]) => parts.join('\u0000');
const byKey = <T>(rows: Map<string, T>) =>
  [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);

/**
 * SDK metrics are summed in memory and written as one transaction per interval
 * (`METRICS_BATCH_MS`), whatever the number of SDK instances: hourly counters, variant counts,
 * instances' last-seen times, flags' and flag environments' last-seen times and unknown flag names
 * together, then the change version moves once (admin views show last-seen times). With 0 every
 * report is written before its request is answered (tests). A report is answered once it is in
 * the batch: counts reach the admin views within the interval. A failed write keeps its rows for
 * the next one; while the database stays away, reports past a bound are dropped (logged).
 */
export class MetricsBatch {
  private counts = new Map<string, CountRow>();
  private variants = new Map<string, VariantRow>();
  private instances = new Map<string, InstanceRow>();
  private registrations = new Map<string, Registration>();
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  readonly stats = { reports: 0, writes: 0, dropped: 0 };

  constructor(
    private readonly deps: Pick<Deps, 'database' | 'now' | 'config'>,
    private readonly log: { error: (obj: unknown, msg: string) => void } = console,
  ) {}

  /** The write started because the batch grew past FLUSH_AT_ROWS, while it runs. */
  private early: Promise<void> | undefined;

  private get size() {
    return this.counts.size + this.variants.size + this.instances.size + this.registrations.size;
  }

  async add(report: MetricsReport): Promise<void> {
    if (this.size > DROP_AT_ROWS) {
      this.stats.dropped++;
      this.log.error({ appName: report.appName }, 'metrics dropped: the pending batch is full');
      return;
    }
    this.stats.reports++;
    const hourDate = new Date(report.bucket.start);
    hourDate.setUTCMinutes(0, 0, 0);
    const hour = hourDate.toISOString();
    const { appName: app, environment: env } = report;
    for (const [flag, c] of Object.entries(report.bucket.toggles).slice(0, FLAGS_PER_REPORT)) {
      const k = key(flag, app, env, hour);
      const row = this.counts.get(k) ?? { flag, app, env, hour, yes: 0, no: 0 };
      row.yes += c.yes;
      row.no += c.no;
      this.counts.set(k, row);
      for (const [variant, count] of Object.entries(c.variants ?? {}).slice(0, VARIANTS_PER_FLAG)) {
        if (count <= 0) continue;
        const vk = key(flag, app, env, hour, variant);
        const v = this.variants.get(vk) ?? { flag, app, env, hour, variant, count: 0 };
        v.count += count;
        this.variants.set(vk, v);
      }
    }
    if (report.instanceId !== undefined) {
      this.instances.set(key(app, env, report.instanceId), {
        app,
        env,
        id: report.instanceId,
        seen: this.deps.now().toISOString(),
        ip: report.clientIp ?? null,
        type: report.sdkType,
      });
    }
    await this.schedule();
  }

  /**
   * An SDK announcing itself: the application and instance are upserted with the next write, in
   * its transaction (the latest announcement of an instance wins).
   */
  async register(registration: Registration): Promise<void> {
    if (this.size > DROP_AT_ROWS) {
      this.stats.dropped++;
      this.log.error({ appName: registration.appName }, 'registration dropped: the pending batch is full');
      return;
    }
    const { appName, environment, instanceId } = registration;
    this.registrations.set(key(appName, environment, instanceId), registration);
    await this.schedule();
  }

  private async schedule() {
    const every = this.deps.config.METRICS_BATCH_MS;
    if (every === 0) return this.flush();
    if (this.size >= FLUSH_AT_ROWS) {
      // A large batch is written at once, in the background: the report is held in memory
      // already, and an SDK must not wait for a write of other SDKs' counts (reports past
      // DROP_AT_ROWS are dropped while the database cannot keep up).
      this.early ??= this.flush()
        .catch(() => {})
        .finally(() => {
          this.early = undefined;
        });
      return;
    }
    this.timer ??= setTimeout(() => void this.flush().catch(() => {}), every).unref();
  }

  /** Writes what is pending (after a write in progress); resolves when it is stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.writing.catch(() => {}).then(() => this.write());
    this.writing = next;
    return next;
  }

  private async write(): Promise<void> {
    if (this.size === 0) return;
    const counts = this.counts;
    const variants = this.variants;
    const instances = this.instances;
    const registrations = this.registrations;
    this.counts = new Map();
    this.variants = new Map();
    this.instances = new Map();
    this.registrations = new Map();
    let wrote: boolean;
    try {
      wrote = await this.store(byKey(counts), byKey(variants), byKey(instances), byKey(registrations));
      this.stats.writes++;
    } catch (error) {
      // Kept for the next write (added to what came meanwhile).
      for (const [k, r] of counts) {
        const now = this.counts.get(k);
        this.counts.set(k, now ? { ...r, yes: r.yes + now.yes, no: r.no + now.no } : r);
      }
      for (const [k, r] of variants) {
        const now = this.variants.get(k);
        this.variants.set(k, now ? { ...r, count: r.count + now.count } : r);
      }
      for (const [k, r] of instances) if (!this.instances.has(k)) this.instances.set(k, r);
      for (const [k, r] of registrations) if (!this.registrations.has(k)) this.registrations.set(k, r);
      this.log.error({ err: error }, 'metrics batch write failed; retried with the next one');
      const every = this.deps.config.METRICS_BATCH_MS;
      if (every > 0) this.timer ??= setTimeout(() => void this.flush().catch(() => {}), every).unref();
      throw error;
    }
    // Last-seen times show in admin reads: move the change version, after the commit (a failure
    // here leaves the counts stored; the next batch moves it).
    if (wrote) await noteUnloggedChange(this.deps.database.db);
  }

  /** One transaction; answers whether any existing flag was counted. */
  private store(
    counts: CountRow[],
    variants: VariantRow[],
    instances: InstanceRow[],
    registrations: Registration[],
  ): Promise<boolean> {
    const seenAt = this.deps.now().toISOString();
    return transaction(this.deps.database.db, async (tx) => {
      // Only flags that exist are counted; unknown names are kept apart, bounded.
      const known = await existingFlagNames(tx, [...new Set(counts.map((c) => c.flag))]);
      const seen = new Map<string, Set<string>>();
      const unknown = new Map<string, UnknownRow>();
      const unknownPerApp = new Map<string, number>();
      for (const c of counts) {
        if (known.has(c.flag)) {
          seen.set(c.env, (seen.get(c.env) ?? new Set()).add(c.flag));
          continue;
        }
        const app = key(c.app, c.env);
        const n = unknownPerApp.get(app) ?? 0;
        if (n >= UNKNOWN_PER_APP || unknown.has(key(c.flag, app))) continue;
        unknownPerApp.set(app, n + 1);
        unknown.set(key(c.flag, app), { name: c.flag, app: c.app, env: c.env, seen: seenAt });
      }
      // All the batch's flags first, in the lock order: each environment's update below then
      // takes no new flag lock.
      await lockFlagsInOrder(tx, [...known]);
      for (const [environment, flags] of [...seen].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await markFlagsSeen(tx, environment, [...flags].sort());
      }
      await addCounts(
        tx,
        counts.filter((c) => known.has(c.flag)),
      );
      await addVariantCounts(
        tx,
        variants.filter((v) => known.has(v.flag)),
      );
      // Announcements first: an instance that also reported counts then has its newest last-seen.
      for (const registration of registrations) await upsertRegistration(tx, registration);
      await touchInstances(tx, instances);
      await recordUnknown(tx, byKey(unknown));
      return seen.size > 0;
    });
  }

  /** Stops the interval and writes what is pending (the app is closing). */
  async close(): Promise<void> {
    await this.flush().catch((error) => this.log.error({ err: error }, 'last metrics batch lost'));
  }
}

const batches = new WeakMap<object, MetricsBatch>();

/**
 * The batch of this app (one per `deps`, which every slice of one app shares): the client API
 * and the frontend API report into the same one.
 */
export function metricsBatch(
  deps: Pick<Deps, 'database' | 'now' | 'config'>,
  log?: { error: (obj: unknown, msg: string) => void },
): MetricsBatch {
  let batch = batches.get(deps);
  if (!batch) {
    batch = new MetricsBatch(deps, log);
    batches.set(deps, batch);
  }
  return batch;
}
