import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';
import { LRUCache } from 'lru-cache';

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
 * Within one request (`inRequest`), every read uses the first version probed for it: a probe that
 * started after the request arrived is recent enough for all of the request's reads (its
 * credential and its data), so a request costs one probe at most.
 *
 * Values are shared between requests and must not be changed by their readers.
 *
 * `verify` (tests, development): every hit is rebuilt and compared; a difference means some write
 * changed what a read shows without moving the version, and fails the request loudly. Values are
 * then also frozen, so a reader that changes one fails too.
 */
export class ReadCache {
  private readonly entries: LRUCache<string, Entry>;
  private running: Promise<string> | undefined;
  private next: Promise<string> | undefined;
  /** The probe started in the current synchronous run, if any (cleared before other I/O runs). */
  private fresh: Promise<string> | undefined;
  private readonly verify: boolean;
  private readonly requests = new AsyncLocalStorage<{ version?: Promise<string> }>();
  readonly stats = { hits: 0, misses: 0, probes: 0 };

  constructor(
    private readonly probe: () => Promise<string>,
    options: { max?: number; maxBytes?: number; verify?: boolean } = {},
  ) {
    // Entries count their size (`read`'s `bytes`, else 1 KB) against a budget as well as a number.
    this.entries = new LRUCache({
      max: options.max ?? 5000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (entry) => entry.bytes,
    });
    this.verify = options.verify ?? false;
  }

  /**
   * Runs `work` (the rest of a request's handling) as one request: its reads share one version.
   * Call it when the request arrives (Fastify: the first onRequest hook).
   */
  inRequest(work: () => void): void {
    this.requests.run({}, work);
  }

  /** The change version, read by a probe that started after this call (or this request). */
  version(): Promise<string> {
    const request = this.requests.getStore();
    if (request) {
      request.version ??= this.probeAfterNow();
      return request.version;
    }
    return this.probeAfterNow();
  }

  private probeAfterNow(): Promise<string> {
    // A probe started in this same synchronous run (several reads of one request) is after us too.
    if (this.fresh) return this.fresh;
    if (!this.running) return this.start();
    // The running probe may have started before this read arrived: wait for the one after it.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(): Promise<string> {
    this.stats.probes += 1;
    const running = this.probe().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    this.fresh = running;
    queueMicrotask(() => {
      if (this.fresh === running) this.fresh = undefined;
    });
    return running;
  }

  /**
   * The value under `key`, built by `build` unless an entry of the current version exists.
   * Errors are not kept: a failed build is tried again by the next read.
   */
  async read<T>(key: string, build: () => Promise<T>, options: ReadOptions<T> = {}): Promise<T> {
    return (await this.readTimed(key, 0, async () => ({ value: await build(), from: 0, until: 0 }), options))
      .value;
  }

  /**
   * `read` for a value that also depends on the time (statistics over moving windows): `build`
   * says from when until when (milliseconds, both included) its value holds for the data it read,
   * and an entry of the current version serves `now` only within that span.
   */
  async readTimed<T>(
    key: string,
    now: number,
    build: () => Promise<{ value: T; from: number; until: number }>,
    options: ReadOptions<T> = {},
  ): Promise<{ value: T; from: number; until: number }> {
    const version = await this.version();
    const entry = this.entries.get(key);
    if (entry && entry.version === version && entry.from <= now && now <= entry.until) {
      this.stats.hits += 1;
      if (this.verify) {
        const fresh = await build();
        if (!isDeepStrictEqual(fresh.value, entry.value)) {
          throw new Error(`read cache: "${key}" changed without a new change version (${version})`);
        }
      }
      return entry as { value: T; from: number; until: number };
    }
    this.stats.misses += 1;
    const built = await build();
    if (this.verify) deepFreeze(built.value);
    const bytes = Math.max(1, options.bytes?.(built.value) ?? 1024);
    const fresh: Entry = { version, ...built, bytes };
    this.entries.set(key, fresh);
    return fresh as { value: T; from: number; until: number };
  }
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
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
