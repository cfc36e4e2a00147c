import { type CompiledSnapshot, compileSnapshot, type SnapshotInput } from '../../evaluation/index.js';
import type { Database } from '../../platform/db/index.js';
import {
  environmentInput,
  type FlagMeta,
  type IndexedConfiguration,
  indexConfiguration,
} from './snapshot.input.js';
import { latestRevision, loadConfiguration } from './snapshot.store.js';

/** One environment of one revision: the engine input and its compiled form, built on first use. */
export interface EnvironmentSnapshot {
  input: SnapshotInput;
  compiled: CompiledSnapshot;
}

export class Configuration {
  private readonly byEnvironment = new Map<string, EnvironmentSnapshot>();
  private readonly memos = new Map<string, unknown>();

  constructor(private readonly indexed: IndexedConfiguration) {}

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
 * flag). It is rebuilt when the revision (newest event id) moves: at once on a NOTIFY from any
 * instance, and by a poll every `pollMs` as a safety net should a notification be lost. Readers that must see
 * their own writes (the admin playground) ask for `fresh`, which costs one indexed query.
 */
export class ConfigurationCache {
  private current: Configuration | undefined;
  private loading: Promise<Configuration> | undefined;
  private knownRevision = 0;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly database: Database,
    private readonly pollMs = 1000,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen('flagship_events', (payload) => this.observe(Number(payload)));
    this.timer = setInterval(() => {
      latestRevision(this.database.db).then(
        (revision) => this.observe(revision),
        () => {}, // the database is away; the next tick retries
      );
    }, this.pollMs);
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
      if (this.current && this.current.revision >= this.knownRevision) return this.current;
      await this.reload();
    }
    return this.current as Configuration;
  }

  private observe(revision: number) {
    if (Number.isFinite(revision) && revision > this.knownRevision) this.knownRevision = revision;
  }

  private reload(): Promise<Configuration> {
    this.loading ??= loadConfiguration(this.database.db)
      .then((rows) => {
        this.current = new Configuration(indexConfiguration(rows));
        this.observe(rows.revision);
        return this.current;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
