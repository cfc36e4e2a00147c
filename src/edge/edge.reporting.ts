import type { Registration, SdkReporting, UsageReport } from '../features/client-api/index.js';
import type { Principal } from '../platform/http/auth.js';
import type { EdgeToken } from './edge.tokens.js';
import type { UpstreamApi } from './edge.upstream-http.js';

interface Counts {
  featureName: string;
  appName: string;
  environment: string;
  timestamp: string;
  yes: number;
  no: number;
  variants: Record<string, number>;
}
type Application = Registration & {
  environment: string;
  connectVia: { appName: string; instanceId: string }[];
};

/** Rows kept while the upstream cannot take them; past this, new reports are dropped (counted). */
const MAX_ROWS = 100_000;
/** Largest part posted at once (Unleash's default body limit is 100 kB). */
const PART_ROWS = 500;

const hourOf = (iso: string) => {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return new Date().toISOString();
  time.setUTCMinutes(0, 0, 0);
  return time.toISOString();
};

/**
 * What SDKs report to an edge replica: counts summed in memory per flag, application and hour,
 * registrations kept per instance, and sent upstream every interval with `POST
 * /api/client/metrics/bulk`, per environment with that environment's startup token. A part the
 * upstream refuses as malformed (400, 413) is dropped; one it cannot take now (5xx, 429, away)
 * is kept for the next interval, up to MAX_ROWS.
 */
export class UpstreamReporting implements SdkReporting {
  private counts = new Map<string, Counts>();
  private applications = new Map<string, Application>();
  private timer: NodeJS.Timeout | undefined;
  readonly stats = { sent: 0, dropped: 0, failed: 0 };

  constructor(
    private readonly upstream: UpstreamApi,
    private readonly tokens: () => EdgeToken[],
    readonly self: { appName: string; instanceId: string },
  ) {}

  start(intervalMs: number) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  async register(principal: Principal, body: Registration, _clientIp: string): Promise<void> {
    const environment = principal.scope?.environment ?? 'default';
    const key = `${environment}\u0000${body.appName}\u0000${body.instanceId}`;
    if (!this.applications.has(key) && this.applications.size >= MAX_ROWS) {
      this.stats.dropped += 1;
      return;
    }
    this.applications.set(key, { ...body, environment, connectVia: [this.self] });
  }

  async metrics(principal: Principal, body: UsageReport): Promise<void> {
    const environment = principal.scope?.environment ?? 'default';
    const timestamp = hourOf(body.bucket.start);
    for (const [featureName, counts] of Object.entries(body.bucket.toggles)) {
      const key = [environment, body.appName, featureName, timestamp].join('\u0000');
      let row = this.counts.get(key);
      if (!row) {
        if (this.counts.size >= MAX_ROWS) {
          this.stats.dropped += 1;
          continue;
        }
        row = { featureName, appName: body.appName, environment, timestamp, yes: 0, no: 0, variants: {} };
        this.counts.set(key, row);
      }
      row.yes += counts.yes;
      row.no += counts.no;
      for (const [variant, n] of Object.entries(counts.variants ?? {}))
        row.variants[variant] = (row.variants[variant] ?? 0) + n;
    }
  }

  /** What waits to be sent, in the rows it will be sent as (for `/internal-backstage/metricsbatch`). */
  pending(): { metrics: Counts[]; applications: Application[] } {
    return { metrics: [...this.counts.values()], applications: [...this.applications.values()] };
  }

  /** Sends what was collected; resolves when every part was answered or kept for later. */
  async flush(): Promise<void> {
    const counts = [...this.counts.values()];
    const applications = [...this.applications.values()];
    this.counts = new Map();
    this.applications = new Map();
    for (const environment of new Set([...counts, ...applications].map((r) => r.environment))) {
      const token = this.tokens().find((t) => t.environment === environment);
      if (!token) continue; // no startup token may speak for it (cannot happen: its SDKs were refused)
      const mine = counts.filter((c) => c.environment === environment);
      const apps = applications.filter((a) => a.environment === environment);
      for (let i = 0; i < Math.max(mine.length, apps.length); i += PART_ROWS) {
        const part = { metrics: mine.slice(i, i + PART_ROWS), applications: apps.slice(i, i + PART_ROWS) };
        const status = await this.upstream.bulkMetrics(token.token, part);
        if (status >= 200 && status < 300) this.stats.sent += part.metrics.length;
        else if (status === 400 || status === 413) this.stats.dropped += part.metrics.length;
        else {
          this.stats.failed += 1;
          for (const row of part.metrics) void this.keep(row);
          for (const app of part.applications)
            this.applications.set(`${app.environment}\u0000${app.appName}\u0000${app.instanceId}`, app);
        }
      }
    }
  }

  /** A row that could not be sent goes back, added to what came in meanwhile. */
  private keep(row: Counts) {
    const key = [row.environment, row.appName, row.featureName, row.timestamp].join('\u0000');
    const now = this.counts.get(key);
    if (!now) {
      if (this.counts.size < MAX_ROWS) this.counts.set(key, row);
      else this.stats.dropped += 1;
      return;
    }
    now.yes += row.yes;
    now.no += row.no;
    for (const [variant, n] of Object.entries(row.variants))
      now.variants[variant] = (now.variants[variant] ?? 0) + n;
  }
}
