/** Marks a key removed in an overlay, where the base still has it. */
const GONE: unique symbol = Symbol('gone');
type Slot<V> = V | typeof GONE;

/**
 * How large an overlay may grow against its base before a new version folds it in: at most one
 * entry in FOLD_RATIO. A version costs a copy of its overlay; a fold costs a copy of everything, once
 * per many versions.
 */
const FOLD_RATIO = 16;

/**
 * An immutable string-keyed map for data that changes a little at a time (the configuration's
 * per-flag maps, one version per revision): a base `Map` shared by many versions and a small
 * overlay of what changed since the base (removals marked). A new version copies only the overlay,
 * so a change to 25 of 10,000 flags no longer copies the 10,000 entries (12 ms per revision at
 * 10,000 flags, bench/RESULTS.md session 19); once the overlay holds more than 1/16 of the base,
 * the new version folds it into a new base. A lookup is at most two `Map` lookups.
 *
 * Versions are never changed: a reader holding one sees the same entries whatever comes after.
 */
export class SharedMap<V> {
  private constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly overlay: ReadonlyMap<string, Slot<V>>,
  ) {}

  static empty<V>(): SharedMap<V> {
    return new SharedMap<V>(new Map(), new Map());
  }

  /** A first version holding these entries (the map is taken, not copied: leave it alone after). */
  static from<V>(entries: Map<string, V>): SharedMap<V> {
    return new SharedMap(entries, new Map());
  }

  get(key: string): V | undefined {
    return lookup(this.base, this.overlay, key);
  }

  /** The next version, to fill: this one stays as it is. */
  edit(): SharedMapDraft<V> {
    return new SharedMapDraft(this.base, new Map(this.overlay));
  }

  /** The entries, in no particular order (diagnostics, tests). */
  *entries(): IterableIterator<[string, V]> {
    for (const [key, value] of this.base) if (!this.overlay.has(key)) yield [key, value];
    for (const [key, value] of this.overlay) if (value !== GONE) yield [key, value];
  }

  /** Used by SharedMapDraft only. */
  static of<V>(base: ReadonlyMap<string, V>, overlay: ReadonlyMap<string, Slot<V>>): SharedMap<V> {
    return new SharedMap(base, overlay);
  }
}

/** A version of a SharedMap being made: set and delete, then `done`. */
export class SharedMapDraft<V> {
  constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly overlay: Map<string, Slot<V>>,
  ) {}

  get(key: string): V | undefined {
    return lookup(this.base, this.overlay, key);
  }

  set(key: string, value: V): void {
    this.overlay.set(key, value);
  }

  delete(key: string): void {
    if (this.base.has(key)) this.overlay.set(key, GONE);
    else this.overlay.delete(key);
  }

  /** The version made; the draft is not used after this. */
  done(): SharedMap<V> {
    // Nothing below to mark removed: the overlay is the whole map (a first version).
    if (this.base.size === 0) return SharedMap.of(this.overlay as Map<string, V>, new Map());
    if (this.overlay.size * FOLD_RATIO <= this.base.size) return SharedMap.of(this.base, this.overlay);
    const base = new Map(this.base);
    for (const [key, value] of this.overlay) {
      if (value === GONE) base.delete(key);
      else base.set(key, value);
    }
    return SharedMap.of(base, new Map());
  }
}

function lookup<V>(base: ReadonlyMap<string, V>, overlay: ReadonlyMap<string, Slot<V>>, key: string) {
  const value = overlay.get(key);
  if (value === undefined) return base.get(key);
  return value === GONE ? undefined : value;
}
