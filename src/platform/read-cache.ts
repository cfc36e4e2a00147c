import { isDeepStrictEqual } from 'node:util';
import { LRUCache } from 'lru-cache';
import { SharedRead } from './shared-read.js';

/**
 * Admin reads served from memory while nothing they show has changed (docs/adr/0009).
 *
 * Every read first asks the database for the change version (one cheap query, see
 * `changeVersion` in the events slice), so a client that wrote through any instance reads its
 * write through any other. The version probe is shared: a read joins the next probe that starts
 * after it arrived, so concurrent reads cost one query between them, not one each.
 *
 * An entry is built after the probe it is keyed by, so it shows at least that version; when a
 * later probe returns the same version, nothing has committed since and the entry is current.
 *
 * Within one request, reads go through `of(request)`: every read of that view uses the first
 * version probed for the request, since a probe that started after the request arrived is recent
 * enough for all of its reads (its credential and its data), so a request costs one probe at most.
 * The view is keyed by the request object rather than found through an AsyncLocalStorage, which
 * would slow every promise in the process (SDK requests included, which read nothing here).
 * Reads on the `ReadCache` itself belong to no request: each joins a probe that starts after it.
 *
 * Values are shared between requests and must not be changed by their readers.
 *
 * `verify` (tests, development): every hit is rebuilt and compared; a difference means some write
 * changed what a read shows without moving the version, and fails the request loudly. Values are
 * then also frozen, so a reader that changes one fails too.
 */
export class ReadCache implements Reads {
  private readonly entries: LRUCache<string, Entry>;
  private readonly probes: SharedRead<string>;
  private readonly verify: boolean;
  /** The version each scope's reads use: the first probed for the scope (see `of`). */
  private readonly scopes = new WeakMap<object, Promise<string>>();
  private readonly counts = { hits: 0, misses: 0 };

  /** Hits, misses and version probes so far (diagnostics, tests). */
  get stats() {
    return { ...this.counts, probes: this.probes.count };
  }

  constructor(
    probe: () => Promise<string>,
    options: { max?: number; maxBytes?: number; verify?: boolean } = {},
  ) {
    this.probes = new SharedRead(probe);
    // Entries count their size (`read`'s `bytes`, else 1 KB) against a budget as well as a number.
    this.entries = new LRUCache({
      max: options.max ?? 5000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (entry) => entry.bytes,
    });
    this.verify = options.verify ?? false;
  }

  /**
   * The reads of one request (`scope`: the request object, or anything that lives as long): all
   * of them use the version of the first probe started after the first of them arrived. Scopes
   * are held weakly: a request's version goes when the request does.
   */
  of(scope: object): Reads {
    const version = () => this.versionOf(scope);
    return {
      read: <T>(key: string, build: () => Promise<T>, options?: ReadOptions<T>) =>
        this.readAt(version, key, build, options),
      readTimed: <T>(key: string, now: number, build: () => Promise<Timed<T>>, options?: ReadOptions<T>) =>
        this.readTimedAt(version, key, now, build, options),
    };
  }

  /** The change version, read by a probe that started after this call. */
  version(): Promise<string> {
    return this.probeAfterNow();
  }

  private versionOf(scope: object): Promise<string> {
    let version = this.scopes.get(scope);
    if (!version) {
      version = this.probeAfterNow();
      this.scopes.set(scope, version);
    }
    return version;
  }

  private probeAfterNow(): Promise<string> {
    return this.probes.after();
  }

  /**
   * The value under `key`, built by `build` unless an entry of the current version exists.
   * Errors are not kept: a failed build is tried again by the next read.
   */
  read<T>(key: string, build: () => Promise<T>, options?: ReadOptions<T>): Promise<T> {
    return this.readAt(() => this.probeAfterNow(), key, build, options);
  }

  /**
   * `read` for a value that also depends on the time (statistics over moving windows): `build`
   * says from when until when (milliseconds, both included) its value holds for the data it read,
   * and an entry of the current version serves `now` only within that span.
   */
  readTimed<T>(
    key: string,
    now: number,
    build: () => Promise<Timed<T>>,
    options?: ReadOptions<T>,
  ): Promise<Timed<T>> {
    return this.readTimedAt(() => this.probeAfterNow(), key, now, build, options);
  }

  private async readAt<T>(
    version: () => Promise<string>,
    key: string,
    build: () => Promise<T>,
    options: ReadOptions<T> = {},
  ): Promise<T> {
    const timeless = async () => ({ value: await build(), from: 0, until: 0 });
    return (await this.readTimedAt(version, key, 0, timeless, options)).value;
  }

  private async readTimedAt<T>(
    versionOf: () => Promise<string>,
    key: string,
    now: number,
    build: () => Promise<Timed<T>>,
    options: ReadOptions<T> = {},
  ): Promise<Timed<T>> {
    const version = await versionOf();
    const entry = this.entries.get(key);
    if (entry && entry.version === version && entry.from <= now && now <= entry.until) {
      this.counts.hits += 1;
      if (this.verify) {
        const fresh = await build();
        if (!isDeepStrictEqual(fresh.value, entry.value)) {
          throw new Error(`read cache: "${key}" changed without a new change version (${version})`);
        }
      }
      return entry as Timed<T>;
    }
    this.counts.misses += 1;
    const built = await build();
    if (this.verify) deepFreeze(built.value);
    const bytes = Math.max(1, options.bytes?.(built.value) ?? 1024);
    const fresh: Entry = { version, ...built, bytes };
    this.entries.set(key, fresh);
    return fresh as Timed<T>;
  }
}

/**
 * Cached reads, as services take them: the `ReadCache` itself (no request: every read probes after
 * it arrives) or one request's view of it (`ReadCache.of`: one probe for all of the request's reads).
 */
export interface Reads {
  read<T>(key: string, build: () => Promise<T>, options?: ReadOptions<T>): Promise<T>;
  readTimed<T>(
    key: string,
    now: number,
    build: () => Promise<Timed<T>>,
    options?: ReadOptions<T>,
  ): Promise<Timed<T>>;
}

/** A value with the span of time (ms, both ends included) it holds for. */
export interface Timed<T> {
  value: T;
  from: number;
  until: number;
}

interface Entry {
  version: string;
  value: unknown;
  /** The span of time (ms) the value holds for; 0..0 with `read`, which ignores time. */
  from: number;
  until: number;
  bytes: number;
}

export interface ReadOptions<T> {
  /** About how many bytes the value holds (large serialised answers); 1 KB when not given. */
  bytes?: (value: T) => number;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  // Bytes (kept serialised answers) cannot be frozen; a difference still fails the comparison.
  if (ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
