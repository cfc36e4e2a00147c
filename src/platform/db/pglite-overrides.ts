import type { PGlite } from '@electric-sql/pglite';

/**
 * The PGlite instance with some of its methods replaced (the write watch, prepared statements).
 * PGlite keeps its state in private fields, so every other method runs bound to the instance
 * itself: called on a proxy or a subclass-like wrapper, it would fail to reach them.
 */
export function withOverrides(pglite: PGlite, overrides: Partial<Record<keyof PGlite, unknown>>): PGlite {
  return new Proxy(pglite, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof PGlite];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
