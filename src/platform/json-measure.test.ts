import { describe, expect, it } from 'vitest';
import { measureJson, nestsDeeperThan } from './json-measure.js';

/** `levels` nested arrays, built without recursion: [[[…]]]. */
const arrays = (levels: number) => {
  let value: unknown[] = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
};

describe('measureJson', () => {
  it.each<[string, unknown]>([
    ['a string', 'abc'],
    ['a number', -12.5],
    ['null', null],
    ['true', true],
    ['an empty object', {}],
    ['an empty array', []],
    ['a flag-like object', { name: 'f', enabled: false, tags: ['a', 'b'], env: { rollout: 50 } }],
  ])('counts %s close to its JSON length', (_label, value) => {
    const { size, over } = measureJson(value);
    expect(over).toBe(false);
    const length = JSON.stringify(value).length;
    expect(size).toBeGreaterThanOrEqual(length);
    expect(size).toBeLessThanOrEqual(length + 16);
  });

  it('gives the depth: 0 for a scalar, 1 for {}, one more per level', () => {
    expect(measureJson(1).depth).toBe(0);
    expect(measureJson({}).depth).toBe(1);
    expect(measureJson({ a: [{ b: [] }], c: 1 }).depth).toBe(4);
  });

  it('stops once past a bound, without walking the rest', () => {
    const wide = Array.from({ length: 1_000_000 }, () => 'xxxx');
    expect(measureJson(wide, { maxSize: 100 })).toMatchObject({ over: true });
    expect(measureJson(wide, { maxSize: 100 }).size).toBeLessThan(110);
    expect(measureJson(arrays(100_000), { maxDepth: 64 })).toMatchObject({ over: true, depth: 65 });
  });

  it('measures a value nested far deeper than the call stack allows', () => {
    expect(measureJson(arrays(100_000))).toMatchObject({ over: false, depth: 100_000 });
  });
});

describe('nestsDeeperThan', () => {
  it.each<[string, number, boolean, () => unknown]>([
    ['a scalar', 0, false, () => 'scalar'],
    ['{}', 0, true, () => ({})],
    ['{}', 1, false, () => ({})],
    ['3 levels', 3, false, () => ({ a: [{ b: 1 }] })],
    ['4 levels', 3, true, () => ({ a: [{ b: {} }] })],
    ['64 levels', 64, false, () => arrays(64)],
    ['65 levels', 64, true, () => arrays(65)],
    ['100,000 levels', 64, true, () => arrays(100_000)],
  ])('%s against a bound of %s: %s', (_label, max, expected, build) => {
    expect(nestsDeeperThan(build(), max)).toBe(expected);
  });
});
