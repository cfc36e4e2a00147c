import { Configuration, type ConfigurationSource } from '../features/snapshot/index.js';
import { AppError } from '../platform/http/errors.js';
import { type ClientDocument, indexDocuments } from './edge.index.js';
import type { EdgeToken } from './edge.tokens.js';
import type { UpstreamApi } from './edge.upstream-http.js';

interface Log {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Upstream answers after which streaming is given up for a token (the upstream has none, or refuses). */
const NO_STREAMING = new Set([401, 403, 404, 405, 501]);

/** Merges documents of one environment fetched with different tokens: flags by name, segments by id. */
function merge(into: ClientDocument | undefined, document: ClientDocument): ClientDocument {
  if (!into) return document;
  const names = new Set(into.features.map((f) => f.name));
  const ids = new Set((into.segments ?? []).map((s) => s.id));
  return {
    features: [...into.features, ...document.features.filter((f) => !names.has(f.name))],
    segments: [...(into.segments ?? []), ...(document.segments ?? []).filter((s) => !ids.has(s.id))],
    meta: { revisionId: Math.max(into.meta?.revisionId ?? 0, document.meta?.revisionId ?? 0) },
  };
}

/**
 * An edge replica's configuration: the upstream's client-features document of each startup token,
 * fetched with its ETag every `refreshMs` and, with `streaming`, at once whenever the upstream's
 * `/api/client/streaming` says something changed (the stream is only a signal; the document is
 * always fetched whole, so a replica never applies a change it could misread). Keeps the last
 * configuration while the upstream is away. Until the first document arrives, readers get 503.
 */
export class UpstreamConfiguration implements ConfigurationSource {
  private current: Configuration | undefined;
  private readonly fetched = new Map<
    string,
    {
      etag?: string;
      document?: ClientDocument;
      /** When the upstream last answered for this token, and when that answer was a new document. */
      lastCheck?: Date;
      lastRefreshed?: Date;
      /** Fetches failed since the last answer. */
      failures?: number;
    }
  >();
  private readonly listeners = new Set<(next: Configuration) => void>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private tokens: EdgeToken[] = [];
  /** What `/health` reports: whether the last upstream request worked, and when one last did. */
  readonly upstreamState = {
    reachable: false,
    lastSuccess: undefined as Date | undefined,
    error: undefined as string | undefined,
  };

  constructor(
    private readonly upstream: UpstreamApi,
    private readonly options: { refreshMs: number; streaming: boolean; log: Log },
  ) {}

  get ready(): boolean {
    return this.current !== undefined;
  }

  async get(): Promise<Configuration> {
    if (!this.current) {
      throw new AppError(
        'ServiceUnavailableError',
        'This edge replica has no configuration from its upstream yet.',
      );
    }
    return this.current;
  }

  peek(): Configuration | undefined {
    return this.current;
  }

  subscribe(listener: (next: Configuration) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Fetches every token's document once (failures are retried by the timer), then keeps them current. */
  async start(tokens: EdgeToken[]): Promise<void> {
    this.tokens = tokens;
    await Promise.all(this.tokens.map((t) => this.refresh(t)));
    this.timer = setInterval(() => {
      for (const token of this.tokens) void this.refresh(token);
    }, this.options.refreshMs);
    this.timer.unref();
    if (this.options.streaming) for (const token of this.tokens) void this.follow(token);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.abort.abort();
  }

  /** Fetches the token's document; a call while one is in flight makes it fetch once more after. */
  refresh(token: EdgeToken): Promise<void> {
    const inFlight = this.running.get(token.token);
    if (inFlight) {
      this.again.add(token.token);
      return inFlight;
    }
    const run = this.fetchOnce(token).finally(() => {
      this.running.delete(token.token);
      if (this.again.delete(token.token)) void this.refresh(token);
    });
    this.running.set(token.token, run);
    return run;
  }

  private async fetchOnce(token: EdgeToken): Promise<void> {
    const entry = this.fetched.get(token.token) ?? {};
    this.fetched.set(token.token, entry);
    try {
      const result = await this.upstream.features(token.token, entry.etag, this.options.refreshMs);
      const now = new Date();
      Object.assign(this.upstreamState, { reachable: true, lastSuccess: now, error: undefined });
      entry.lastCheck = now;
      entry.failures = 0;
      if (result.status === 'unchanged') return;
      entry.lastRefreshed = now;
      if (result.status === 'refused') {
        this.options.log.warn(
          { environment: token.environment, status: result.code },
          'upstream refused a startup token; its flags are no longer served',
        );
        if (entry.document === undefined) return;
        entry.document = undefined;
        entry.etag = undefined;
      } else {
        entry.document = result.document;
        entry.etag = result.etag;
      }
      this.rebuild();
    } catch (error) {
      entry.failures = (entry.failures ?? 0) + 1;
      Object.assign(this.upstreamState, {
        reachable: false,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Per startup token, how its fetches go (for `/internal-backstage/tokens`). */
  refreshes() {
    return this.tokens.map((token) => {
      const entry = this.fetched.get(token.token) ?? {};
      return {
        token,
        etag: entry.etag ?? null,
        lastCheck: entry.lastCheck?.toISOString() ?? null,
        lastRefreshed: entry.lastRefreshed?.toISOString() ?? null,
        lastFeatureCount: entry.document?.features.length ?? null,
        failureCount: entry.failures ?? 0,
      };
    });
  }

  /** Each environment's document as served now (the startup tokens' documents merged). */
  documents(): Map<string, ClientDocument> {
    const documents = new Map<string, ClientDocument>();
    for (const token of this.tokens) {
      const document = this.fetched.get(token.token)?.document;
      if (document) documents.set(token.environment, merge(documents.get(token.environment), document));
    }
    // Serving a backup: an environment the upstream has not answered for yet keeps the backup's.
    for (const [environment, document] of this.restored ?? []) {
      if (!documents.has(environment)) documents.set(environment, document);
    }
    return documents;
  }

  /**
   * Whether every startup token's document came from the upstream (not a backup): only then is
   * the configuration worth saving whole.
   */
  get complete(): boolean {
    return (
      this.restored === undefined &&
      this.tokens.length > 0 &&
      this.tokens.every((t) => this.fetched.get(t.token)?.document !== undefined)
    );
  }

  /** What a backup held, served until the upstream's own documents arrive (edge.backup.ts). */
  private restored: Map<string, ClientDocument> | undefined;
  /** When the backup being served was written (for `/health`); undefined once the upstream answered. */
  servingBackupOf: string | undefined;

  /** Serves a backup's documents while nothing came from the upstream yet; false when something did. */
  restore(documents: Map<string, ClientDocument>, savedAt: string): boolean {
    if (this.current) return false;
    this.restored = documents;
    this.servingBackupOf = savedAt;
    this.publish(documents);
    return true;
  }

  private rebuild() {
    const documents = this.documents();
    // Once the upstream answered for every startup token, its documents replace the backup's.
    if (this.tokens.every((t) => this.fetched.get(t.token)?.document !== undefined)) {
      this.restored = undefined;
      this.servingBackupOf = undefined;
    }
    this.publish(documents);
  }

  private publish(documents: Map<string, ClientDocument>) {
    const upstreamRevision = Math.max(0, ...[...documents.values()].map((d) => d.meta?.revisionId ?? 0));
    // Moves forward on every change, also when the upstream sends no revision (or an older one).
    const revision = Math.max(upstreamRevision, (this.current?.revision ?? 0) + 1);
    const next = new Configuration(indexDocuments(documents, revision));
    this.current = next;
    for (const listener of this.listeners) {
      try {
        listener(next);
      } catch {
        // One listener's failure must not keep the others on the old configuration.
      }
    }
  }

  /** Holds the upstream's stream open, reconnecting with a back-off, and fetches on each event. */
  private async follow(token: EdgeToken): Promise<void> {
    const { signal } = this.abort;
    let backoff = 1000;
    while (!signal.aborted) {
      try {
        await this.upstream.stream(token.token, signal, () => {
          backoff = 1000;
          void this.refresh(token);
        });
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status !== undefined && NO_STREAMING.has(status)) {
          this.options.log.info(
            { environment: token.environment, status },
            `upstream streaming unavailable; polling every ${this.options.refreshMs / 1000} s`,
          );
          return;
        }
      }
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
}
