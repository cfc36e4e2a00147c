import { describe, expect, it } from 'vitest';
import { fixVariantWeights } from './variants.weights.js';

const v = (name: string, weightType = 'variable', weight = 0) => ({ name, weight, weightType });
const summary = (list: { name: string; weight: number }[]) => list.map((x) => [x.name, x.weight]);

describe('fixVariantWeights (docs/evaluation.md §9.4, §15 example 10)', () => {
  it.each([
    ['empty list', [], []],
    ['one variable', [v('a')], [['a', 1000]]],
    // §15 example 10: input [c,a,b] all variable -> c (first in input) gets the +1.
    [
      '[c,a,b] all variable',
      [v('c'), v('a'), v('b')],
      [
        ['a', 333],
        ['b', 333],
        ['c', 334],
      ],
    ],
    // §15 example 10: [x fix 200, y, z, w] -> 800/3 = 266 r 2 -> y 267, z 267, w 266.
    [
      'fixed plus variable',
      [v('x', 'fix', 200), v('y'), v('z'), v('w')],
      [
        ['w', 266],
        ['x', 200],
        ['y', 267],
        ['z', 267],
      ],
    ],
    // §15 example 10: [B, a] -> stored [a, B] (localeCompare, not code-point order).
    [
      'locale order',
      [v('B'), v('a')],
      [
        ['a', 500],
        ['B', 500],
      ],
    ],
    [
      'fixed exactly 1000 leaves 0',
      [v('f', 'fix', 1000), v('g')],
      [
        ['f', 1000],
        ['g', 0],
      ],
    ],
    ['weightType defaults to variable', [{ name: 'q', weight: 7 }], [['q', 1000]]],
  ])('%s', (_label, input, expected) => {
    expect(summary(fixVariantWeights(input))).toEqual(expected);
  });

  it('seven variable variants: six get 143, the last one 142', () => {
    const out = fixVariantWeights(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => v(n)));
    expect(out.map((x) => x.weight)).toEqual([143, 143, 143, 143, 143, 143, 142]);
  });

  it('keeps the other fields and does not mutate the input', () => {
    const input = [{ name: 'a', weight: 5, weightType: 'variable', stickiness: 'userId' }];
    expect(fixVariantWeights(input)).toEqual([
      { name: 'a', weight: 1000, weightType: 'variable', stickiness: 'userId' },
    ]);
    expect(input[0]?.weight).toBe(5);
  });

  it.each([
    ['no variable variant', [v('a', 'fix', 500)]],
    ['fixed weights above 1000', [v('a', 'fix', 600), v('b', 'fix', 401), v('c')]],
  ])('refuses %s with a ValidationError', (_label, input) => {
    expect(() => fixVariantWeights(input)).toThrow(expect.objectContaining({ name: 'ValidationError' }));
  });
});
