import { describe, expect, it } from 'vitest';
import { normaliseVariantWeights, variantWeightProblems, type WeightedVariant } from './variants.weights.js';

const v = (name: string, weightType: 'variable' | 'fix' = 'variable', weight = 0): WeightedVariant => ({
  name,
  weight,
  weightType,
});
const summary = (list: WeightedVariant[]) => list.map((x) => `${x.name}:${x.weight}`);

describe('variant weight normalisation (docs/evaluation.md §9.4 and §15 example 10)', () => {
  it('gives the remainder to the first variable variants in input order, then sorts by name', () => {
    expect(summary(normaliseVariantWeights([v('c'), v('a'), v('b')]))).toEqual(['a:333', 'b:333', 'c:334']);
  });

  it('shares what the fixed weights leave', () => {
    const out = normaliseVariantWeights([v('x', 'fix', 200), v('y'), v('z'), v('w')]);
    expect(summary(out)).toEqual(['w:266', 'x:200', 'y:267', 'z:267']);
  });

  it('seven variable variants: six get 143, one 142', () => {
    const out = normaliseVariantWeights(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => v(n)));
    expect(out.map((x) => x.weight).sort()).toEqual([142, 143, 143, 143, 143, 143, 143]);
  });

  it('sorts with localeCompare (a before B)', () => {
    expect(normaliseVariantWeights([v('B'), v('a')]).map((x) => x.name)).toEqual(['a', 'B']);
  });

  it('refuses fixed weights over 1000, no variable variant, and duplicate names', () => {
    expect(variantWeightProblems([v('a', 'fix', 600), v('b', 'fix', 500), v('c')], '/v')).toHaveLength(1);
    expect(variantWeightProblems([v('a', 'fix', 1000)], '/v')[0]?.message).toMatch(/variable/);
    expect(variantWeightProblems([v('a'), v('a')], '/v')[0]?.path).toBe('/v/1/name');
    expect(variantWeightProblems([], '/v')).toEqual([]);
  });
});
