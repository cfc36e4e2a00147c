import { type CompiledSnapshot, compileSnapshot, type SnapshotInput } from '../../evaluation/index.js';
import type { Database } from '../../platform/db/index.js';
import {
  applyChange,
  environmentInput,
  type FlagMeta,
  type IndexedConfiguration,
  indexConfiguration,
} from './snapshot.input.js';
import { latestRevision, loadChanges, loadConfiguration } from './snapshot.store.js';

/** One environment of one revision: the engine input and its compiled form, built on first use. */
export interface EnvironmentSnapshot {
  input: SnapshotInput;
  compiled: CompiledSnapshot;
}

export class Configuration {
  private readonly byEnvironment = new Map<string, EnvironmentSnapshot>();
  private readonly memos = new Map<string, unknown>();

  constructor(readonly indexed: IndexedConfiguration) {}

  get revision(): number {
    return this.indexed.revision;
  }

  get flags(): readonly FlagMeta[] {
    return this.indexed.flags;
  }

  flag(name: string): FlagMeta | undefined {
    return this.indexed.flagsByName.get(name);
  }

  /** A value derived from this revision (e.g. a serialised client payload), built once per key. */
  memo<T>(key: string, build: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, build());
    return this.memos.get(key) as T;
  }

  environment(name: string): EnvironmentSnapshot {
    let snapshot = this.byEnvironment.get(name);
    if (!snapshot) {
      const input = environmentInput(this.indexed, name);
      snapshot = { input, compiled: compileSnapshot(input) };
      this.byEnvironment.set(name, snapshot);
    }
    return snapshot;
  }
}

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
 */
export class ConfigurationCache {
  private current: Configuration | undefined;
  private loading: Promise<Configuration> | undefined;
  private knownRevision = 0;
  /** Something committed that the current configuration may not have (a NOTIFY below the revision). */
  private stale = false;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /** How each new revision was read: all of it, or only the flags that changed (diagnostics, tests). */
  readonly reads = { full: 0, incremental: 0 };

  constructor(
    private readonly database: Database,
    private readonly pollMs = 1000,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen('flagship_events', (payload) => this.observe(Number(payload)));
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
  }

  /** The configuration; `fresh` first checks the revision in the database. */
  async get(options: { fresh?: boolean } = {}): Promise<Configuration> {
    if (options.fresh) this.observe(await latestRevision(this.database.db));
    // A reload already in flight may predate the revision just observed: then load once more.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.current && this.current.revision >= this.knownRevision && !this.stale) return this.current;
      await this.reload();
    }
    return this.current as Configuration;
  }

  private observe(revision: number) {
    if (!Number.isFinite(revision)) return;
    if (revision > this.knownRevision) this.knownRevision = revision;
    else if (this.current?.indexed.gaps.includes(revision)) this.stale = true;
  }

  private poll() {
    latestRevision(this.database.db).then(
      (revision) => {
        this.observe(revision);
        // Missing ids may have committed without a notification reaching this instance.
        if (this.current && this.current.indexed.gaps.length > 0) this.stale = true;
      },
      () => {}, // the database is away; the next tick retries
    );
  }

  private reload(): Promise<Configuration> {
    this.stale = false;
    const previous = this.current;
    this.loading ??= this.next(previous)
      .then((indexed) => {
        // Nothing evaluated changed (only other events): the same configuration, at the new
        // revision, keeps what it derived (serialised payloads, compiled environments).
        this.current = indexed === previous?.indexed ? previous : new Configuration(indexed);
        this.observe(indexed.revision);
        return this.current;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async next(previous: Configuration | undefined): Promise<IndexedConfiguration> {
    if (previous) {
      const { revision, gaps } = previous.indexed;
      const change = await loadChanges(this.database.db, revision, gaps);
      if (change && change.changed.length === 0) {
        previous.indexed.revision = change.revision;
        previous.indexed.gaps = change.gaps;
        return previous.indexed;
      }
      if (change) {
        this.reads.incremental += 1;
        return applyChange(previous.indexed, change);
      }
    }
    this.reads.full += 1;
    return indexConfiguration(await loadConfiguration(this.database.db));
  }
}
