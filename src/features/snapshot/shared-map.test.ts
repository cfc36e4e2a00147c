import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/prng.js';
import { SharedMap } from './shared-map.js';

/**
 * SharedMap versions against plain Maps changed alongside: after every change each version ever
 * made still holds exactly what its Map held then, through overlays and folds.
 */
describe('SharedMap', () => {
  it('keeps every version as it was made, through 400 random versions', () => {
    const rand = prng(7);
    const keys = Array.from({ length: 300 }, (_, i) => `flag-${i}`);
    let version = SharedMap.empty<number>();
    let model = new Map<string, number>();
    const history: { version: SharedMap<number>; model: Map<string, number> }[] = [];
    for (let step = 0; step < 400; step++) {
      const draft = version.edit();
      const next = new Map(model);
      // Mostly small changes, sometimes a large one (a fold), sometimes a key removed and set again.
      const changes = rand() < 0.05 ? 150 : 1 + Math.floor(rand() * 5);
      for (let c = 0; c < changes; c++) {
        const key = keys[Math.floor(rand() * keys.length)] as string;
        if (rand() < 0.3) {
          draft.delete(key);
          next.delete(key);
          expect(draft.get(key)).toBeUndefined();
        } else {
          const value = step * 1000 + c;
          draft.set(key, value);
          next.set(key, value);
          expect(draft.get(key)).toBe(value);
        }
      }
      version = draft.done();
      model = next;
      history.push({ version, model });
    }
    for (const { version, model } of history) {
      for (const key of keys) expect(version.get(key)).toBe(model.get(key));
      expect(new Map(version.entries())).toEqual(model);
    }
  });

  it('a first version from a Map, and a removal of a key its base holds', () => {
    const first = SharedMap.from(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    const draft = first.edit();
    draft.delete('a');
    draft.set('c', 3);
    const second = draft.done();
    expect([first.get('a'), first.get('c')]).toEqual([1, undefined]);
    expect([second.get('a'), second.get('b'), second.get('c')]).toEqual([undefined, 2, 3]);
    expect(new Map(second.entries())).toEqual(
      new Map([
        ['b', 2],
        ['c', 3],
      ]),
    );
  });
});
