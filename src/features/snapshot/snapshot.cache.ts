import { type CompiledSnapshot, compileSnapshot, type SnapshotInput } from '../../evaluation/index.js';
import type { Database } from '../../platform/db/index.js';
import { SharedRead } from '../../platform/shared-read.js';
import type { SharedMap } from './shared-map.js';
import {
  applyChange,
  environmentInput,
  type FlagInputSource,
  type FlagMeta,
  type IndexedConfiguration,
  indexConfiguration,
} from './snapshot.input.js';
import {
  anyCommitted,
  GAP_WINDOW,
  latestRevision,
  loadChanges,
  loadConfiguration,
} from './snapshot.store.js';

/**
 * Whether a notified event id, not above the revision read, is one that read could not see: a gap,
 * or an id below the gap window while transactions were in progress at the read (one of them
 * committed late; no notification of an event already read comes that late).
 */
const lateCommit = (read: { revision: number; gaps: number[]; pending: string[] }, id: number) =>
  read.gaps.includes(id) || (read.pending.length > 0 && id <= read.revision - GAP_WINDOW);

/**
 * One environment of one revision: the engine input, its compiled form (on first use) and values
 * derived from it (e.g. serialised client payloads). A revision whose changes all happened in other
 * environments carries this object over unchanged, with everything already derived.
 */
export class EnvironmentSnapshot {
  private compiledSnapshot: CompiledSnapshot | undefined;
  private readonly memos = new Map<string, unknown>();

  constructor(
    readonly input: SnapshotInput,
    /** Per flag, what its input was made of (see environmentInput). */
    readonly sources: SharedMap<FlagInputSource>,
    /** The token of the indexed configuration it was built from (see environmentInput). */
    readonly token?: object,
  ) {}

  get compiled(): CompiledSnapshot {
    this.compiledSnapshot ??= compileSnapshot(this.input);
    return this.compiledSnapshot;
  }

  /** A value derived from this environment's input, built once per key. */
  memo<T>(key: string, build: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, build());
    return this.memos.get(key) as T;
  }
}

export class Configuration {
  private readonly byEnvironment: Map<string, EnvironmentSnapshot>;
  private readonly previous: Map<string, EnvironmentSnapshot>;

  /**
   * `previous`: the previous revision. The environments it had built that a change did not touch
   * are taken over as they are; the others lend their per-flag inputs to the rebuild, and so do
   * the lenders it had not used yet (an environment nobody read at that revision): under a stream
   * of writes a revision may be replaced before anyone reads it, and without them the next read
   * would make (and serialise) every flag of the environment anew.
   */
  constructor(
    readonly indexed: IndexedConfiguration,
    previous?: { configuration: Configuration; touched: Set<string> | 'all' },
  ) {
    const touched = previous?.touched ?? 'all';
    const all = [...(previous?.configuration.byEnvironment ?? [])];
    this.byEnvironment = new Map(all.filter(([name]) => touched !== 'all' && !touched.has(name)));
    this.previous = new Map([
      ...(previous?.configuration.previous ?? []),
      ...all.filter(([name]) => !this.byEnvironment.has(name)),
    ]);
  }

  get revision(): number {
    return this.indexed.revision;
  }

  get flags(): readonly FlagMeta[] {
    return this.indexed.flags;
  }

  flag(name: string): FlagMeta | undefined {
    return this.indexed.flagsByName.get(name);
  }

  environment(name: string): EnvironmentSnapshot {
    let snapshot = this.byEnvironment.get(name);
    if (!snapshot) {
      const { input, sources } = environmentInput(this.indexed, name, this.previous.get(name));
      this.previous.delete(name);
      snapshot = new EnvironmentSnapshot(input, sources, this.indexed.token);
      this.byEnvironment.set(name, snapshot);
    }
    return snapshot;
  }
}

/** What readers of the configuration use: the cache below, or an edge replica's copy (src/edge/). */
export interface ConfigurationSource {
  get(options?: { fresh?: boolean; within?: number }): Promise<Configuration>;
  /**
   * What `get({ within })` would answer at once, without a promise: the configuration when it is
   * current (or was read less than `within` ms ago), else undefined (then call `get`). For the
   * SDK paths, which answer thousands of requests a second from memory.
   */
  peek(within: number): Configuration | undefined;
  /** Calls `listener` with every configuration the source moves to; returns the unsubscribe. */
  subscribe(listener: (next: Configuration) => void): () => void;
}

/** The least time between the starts of two reads that follow NOTIFYs (see `follow`). */
const FOLLOW_GAP_MS = 250;

/**
 * PostgreSQL: notifications a second above which the instance stops listening and polls every
 * FOLLOW_GAP_MS instead (see `pollInstead`); at less than half that rate for CALM_MS, it listens again.
 */
const BUSY_NOTIFICATIONS_PER_S = 20;
const CALM_MS = 2000;

/**
 * The in-memory configuration every evaluation reads (docs/evaluation.md §0.10: no query per
 * flag). It moves to a new revision (newest event id) when one is known: at once on a NOTIFY from
 * any instance, and by a poll every `pollMs` as a safety net should a notification be lost.
 * Readers that must see their own writes (the admin playground) ask for `fresh`, which costs one
 * indexed query.
 *
 * A new revision is applied incrementally: the events since the last one name the flags that
 * changed, and only their rows are read (`applyChange`). Anything else (segments, projects,
 * environments, or a long backlog) reads the whole configuration again. Event ids below the
 * revision that were missing (transactions that had not committed yet) are watched: a NOTIFY,
 * whatever id it carries, or a poll that finds one of them, brings them in.
 *
 * Under a stream of writes (PostgreSQL), every commit would wake this instance's listening session
 * and send it a notification, though the cache reads new revisions only every FOLLOW_GAP_MS: at
 * 300 writes a second that cost the SDK requests sharing the machine about a tenth of their
 * throughput (bench/RESULTS.md). Past BUSY_NOTIFICATIONS_PER_S the instance stops listening and
 * polls the revision every FOLLOW_GAP_MS instead (a change waits at most that much longer to be
 * seen), and listens again once the revision moved at less than half that rate for CALM_MS.
 */
export class ConfigurationCache implements ConfigurationSource {
  private current: Configuration | undefined;
  private loading: Promise<Configuration> | undefined;
  private knownRevision = 0;
  /** Something committed that the current configuration may not have (a NOTIFY below the revision). */
  private stale = false;
  /** Ids announced below the known revision while a read was in flight (see observe). */
  private readonly lateWhileLoading = new Set<number>();
  /** When the current configuration was read (performance.now()). */
  private loadedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private followTimer: NodeJS.Timeout | undefined;
  /** When the last read of a new revision started (performance.now()). */
  private readStartedAt = Number.NEGATIVE_INFINITY;
  private unlisten: (() => Promise<void>) | undefined;
  /** Listening for NOTIFYs, or polling every FOLLOW_GAP_MS under a stream of writes (see `pollInstead`). */
  private mode: 'listening' | 'polling' | 'switching' = 'switching';
  /**
   * Listening: when the last BUSY_NOTIFICATIONS_PER_S + 1 notifications came (a ring, `next` the
   * oldest). Polling: since when the revision moved slowly, and the revision the last poll saw.
   */
  private readonly pacing = {
    times: new Float64Array(BUSY_NOTIFICATIONS_PER_S + 1).fill(Number.NEGATIVE_INFINITY),
    next: 0,
    since: 0,
    revision: 0,
  };
  private stopped = false;
  /** The closing of the listening session on the last move to polling. */
  private closing: Promise<void> | undefined;
  /** The opening of a listening session on the last move back to listening (see `listenAgain`). */
  private reopening: Promise<void> | undefined;
  /** How each new revision was read: all of it, or only the flags that changed (diagnostics, tests). */
  readonly reads = { full: 0, incremental: 0 };
  /** Called with each configuration read (client-delta keeps its change ring from them). */
  private readonly listeners = new Set<(next: Configuration) => void>();

  /**
   * The newest revision in the database, from a read that started after the call (kept while
   * nothing was written, on PGlite).
   */
  private readonly latest: () => Promise<number>;

  constructor(
    private readonly database: Database,
    private readonly pollMs = 1000,
  ) {
    // Shared: playground requests arriving together check the revision with one query between them.
    const latest = new SharedRead(database.keepUntilWrite(() => latestRevision(database.db)));
    this.latest = () => latest.after();
  }

  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.followTimer) clearTimeout(this.followTimer);
    await this.unlisten?.().catch(() => {});
    this.unlisten = undefined;
    // A session closed on a move to polling, or one being opened on the move back: closed before
    // the database is.
    await this.closing;
    await this.reopening;
  }

  /** How the instance learns of new revisions now (diagnostics, tests). */
  get learning(): 'listening' | 'polling' | 'switching' {
    return this.mode;
  }

  private async listen(): Promise<void> {
    this.mode = 'switching';
    const unlisten = await this.database.listen('flagship_events', (payload) =>
      this.notified(Number(payload)),
    );
    if (this.stopped) {
      await unlisten().catch(() => {});
      return;
    }
    this.unlisten = unlisten;
    this.pacing.times.fill(Number.NEGATIVE_INFINITY);
    this.every(this.pollMs, 'listening');
  }

  private every(ms: number, mode: 'listening' | 'polling') {
    if (this.timer) clearInterval(this.timer);
    this.mode = mode;
    if (this.stopped) return;
    this.timer = setInterval(() => this.poll(), ms);
    this.timer.unref();
  }

  private notified(revision: number) {
    this.observe(revision);
    if (this.mode !== 'listening' || this.database.engine !== 'postgres') return;
    // More than BUSY_NOTIFICATIONS_PER_S within the last second: the oldest of the last that many
    // plus one came less than a second ago.
    const { times } = this.pacing;
    const now = performance.now();
    const oldest = times[this.pacing.next] as number;
    times[this.pacing.next] = now;
    this.pacing.next = (this.pacing.next + 1) % times.length;
    if (now - oldest < 1000) this.pollInstead();
  }

  /** A stream of writes: stops listening and polls every FOLLOW_GAP_MS instead. */
  private pollInstead() {
    this.pacing.since = performance.now();
    this.pacing.revision = this.knownRevision;
    this.every(FOLLOW_GAP_MS, 'polling');
    this.closing = this.unlisten?.().catch(() => {});
    this.unlisten = undefined;
  }

  /**
   * The stream is over: listens again, then polls once for what committed between the last poll
   * and the LISTEN taking effect (it notified nobody here). A failure to listen (the database
   * away) keeps the instance polling; the next calm period tries again.
   */
  private listenAgain() {
    this.reopening = this.listen().then(
      () => {
        if (!this.stopped) this.poll();
      },
      () => {
        this.pacing.since = performance.now();
        this.every(FOLLOW_GAP_MS, 'polling');
      },
    );
  }

  /** Polling: listens again once the revision moved at less than half the busy rate for CALM_MS. */
  private paceAfterPoll() {
    if (this.mode !== 'polling') return;
    const now = performance.now();
    const moved = this.knownRevision - this.pacing.revision;
    this.pacing.revision = this.knownRevision;
    if (moved > (BUSY_NOTIFICATIONS_PER_S * FOLLOW_GAP_MS) / 2000) this.pacing.since = now;
    else if (now - this.pacing.since >= CALM_MS) this.listenAgain();
  }

  /**
   * The configuration. `fresh` first checks the revision in the database (read-your-writes).
   * `within`: a configuration read less than that many ms ago is good enough even when a newer
   * revision is known, so that under a stream of writes a busy reader (the client API) rebuilds at
   * most once per period instead of once per write; a change still reaches it within the period.
   */
  peek(within: number): Configuration | undefined {
    const current = this.current;
    if (!current || this.stale) return undefined;
    if (current.revision >= this.knownRevision || this.goodEnough(within)) return current;
    return undefined;
  }

  async get(options: { fresh?: boolean; within?: number } = {}): Promise<Configuration> {
    const { within } = options;
    const acceptable = () =>
      within !== undefined && this.current !== undefined && !this.stale && this.goodEnough(within);
    if (acceptable()) return this.current as Configuration;
    if (options.fresh) this.observe(await this.latest());
    // A reload already in flight may predate the revision just observed: then load once more. A
    // reader with a period takes the configuration just read: under a stream of writes a newer
    // revision is known again by then, and reading it at once (and again) would bypass the gap
    // between reads that `follow` keeps, at the cost of the SDK requests (seen: 7 reads a second
    // instead of 4 at 100 writes/s, the extra ones started by 304 requests).
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.current && this.current.revision >= this.knownRevision && !this.stale) return this.current;
      await this.reload();
      if (acceptable()) return this.current as Configuration;
    }
    return this.current as Configuration;
  }

  /**
   * For a reader that accepts a period (`within`): the current configuration will do when it was
   * read less than `within` ms ago, or while the next one is being read. Readers then never queue
   * behind a reload (under a stream of writes one is nearly always running, and each may wait for
   * the database behind those writes); they get the newer configuration as soon as it is there.
   */
  private goodEnough(within: number): boolean {
    return this.loading !== undefined || performance.now() - this.loadedAt < within;
  }

  /**
   * Calls `listener` with every configuration this cache moves to, before any reader gets it.
   * While someone listens, a known newer revision is read at once (not on the next reader's
   * request), so that pushed updates (SSE) follow a NOTIFY without waiting for a poll.
   */
  subscribe(listener: (next: Configuration) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private observe(revision: number) {
    if (!Number.isFinite(revision)) return;
    if (revision > this.knownRevision) this.knownRevision = revision;
    else if (this.current && lateCommit(this.current.indexed, revision)) this.stale = true;
    // A read in flight may have found this id missing (its transaction committed after the read
    // began, out of id order): checked against that read's gaps when it is in.
    else if (this.loading) this.lateWhileLoading.add(revision);
    this.follow();
  }

  /**
   * With listeners, reads a known newer revision now (again once a read in flight is done), but
   * starts reads at most every FOLLOW_GAP_MS: under a stream of writes each read rebuilds the
   * touched environments and the payloads SDKs ask for, work that grows with the number of flags,
   * so back-to-back reads would take the CPU the SDK requests need. A change waits that much more.
   */
  private follow() {
    const behind = !this.current || this.current.revision < this.knownRevision || this.stale;
    if (this.listeners.size === 0 || !behind || this.loading || this.followTimer) return;
    const wait = this.readStartedAt + FOLLOW_GAP_MS - performance.now();
    if (wait <= 0) {
      this.get().catch(() => {});
      return;
    }
    this.followTimer = setTimeout(() => {
      this.followTimer = undefined;
      this.follow();
    }, wait);
    this.followTimer.unref();
  }

  private poll() {
    const { gaps = [], pending = [] } = this.current?.indexed ?? {};
    Promise.all([this.latest(), anyCommitted(this.database.db, gaps, pending)]).then(
      ([revision, committed]) => {
        this.observe(revision);
        this.paceAfterPoll();
        // A missing id, or an event of a transaction in progress at the last read, committed
        // without a notification that this instance could place (an id below the gap window).
        // Gaps that stay missing (rolled-back transactions) cost this background query, not a
        // reload per second.
        if (committed) {
          this.stale = true;
          this.follow();
        }
      },
      () => {}, // the database is away; the next tick retries
    );
  }

  private reload(): Promise<Configuration> {
    this.stale = false;
    const previous = this.current;
    if (!this.loading) this.readStartedAt = performance.now();
    this.loading ??= this.next(previous)
      .then((next) => {
        this.current = next;
        this.loadedAt = performance.now();
        for (const id of this.lateWhileLoading) if (lateCommit(next.indexed, id)) this.stale = true;
        this.lateWhileLoading.clear();
        for (const listener of this.listeners) {
          try {
            listener(next);
          } catch {
            // A listener's failure must not stop the configuration moving for everyone else.
          }
        }
        this.observe(next.revision);
        // After a successful read only: a failing database is retried by the next poll, not
        // in a loop.
        setImmediate(() => this.follow());
        return next;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async next(previous: Configuration | undefined): Promise<Configuration> {
    if (previous) {
      const { revision, gaps, pending } = previous.indexed;
      const change = await loadChanges(this.database.db, revision, gaps, pending);
      if (change && change.changed.length === 0) {
        // Nothing evaluated changed (only other events): the same configuration, at the new
        // revision, keeps what it derived (serialised payloads, compiled environments).
        previous.indexed.revision = change.revision;
        previous.indexed.gaps = change.gaps;
        previous.indexed.pending = change.pending;
        return previous;
      }
      if (change) {
        this.reads.incremental += 1;
        return new Configuration(applyChange(previous.indexed, change), {
          configuration: previous,
          touched: change.touched,
        });
      }
    }
    this.reads.full += 1;
    return new Configuration(indexConfiguration(await loadConfiguration(this.database.db)));
  }
}
