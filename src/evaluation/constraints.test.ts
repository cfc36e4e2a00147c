import { describe, expect, it } from 'vitest';
import { compileConstraint, OPERATORS } from './constraints.js';
import { prepareContext } from './context.js';
import type { ConstraintInput, EvaluationContext } from './types.js';

const env = { now: new Date('2024-06-01T00:00:00Z'), random: () => 0.5 };

type Row = [
  operator: string,
  constraint: Partial<ConstraintInput>,
  context: EvaluationContext,
  expected: boolean,
];

// One row per behaviour of docs/evaluation.md §6 (the SDK side, §0.5). Context field is `f` unless set.
const rows: Row[] = [
  ['IN', { values: ['a', 'b'] }, { f: 'b' }, true],
  ['IN', { values: ['NO'], caseInsensitive: true }, { f: 'no' }, false],
  ['IN', { values: [' a ', ''] }, { f: 'a' }, true],
  ['IN', { values: ['a'] }, { f: ' a' }, false],
  ['IN', { values: [] }, { f: 'a' }, false],
  ['IN', { values: ['a'] }, {}, false],
  ['IN', { values: ['a'] }, { properties: { f: 'a' } }, true],
  ['IN', { values: ['a'] }, { f: 'b', properties: { f: 'a' } }, false],
  ['IN', { values: ['0'] }, { f: 0 }, true],
  ['IN', { values: ['a'], inverted: true }, { f: 'a' }, false],
  ['IN', { contextName: 'environment', values: ['default'] }, {}, true],
  ['NOT_IN', { values: ['a'] }, { f: 'b' }, true],
  ['NOT_IN', { values: ['a'] }, {}, true],
  ['NOT_IN', { values: ['a'] }, { properties: { f: null } }, true],
  ['NOT_IN', { values: [] }, { f: 'a' }, true],
  ['STR_STARTS_WITH', { values: ['ab'] }, { f: 'abc' }, true],
  ['STR_STARTS_WITH', { values: ['AB'] }, { f: 'abc' }, false],
  ['STR_STARTS_WITH', { values: ['AB'], caseInsensitive: true }, { f: 'abc' }, true],
  ['STR_ENDS_WITH', { values: ['x', 'bc'] }, { f: 'abc' }, true],
  ['STR_CONTAINS', { values: ['b'] }, { f: 'abc' }, true],
  ['STR_CONTAINS', { values: ['b'] }, {}, false],
  ['STR_CONTAINS', { values: ['b'], inverted: true }, {}, true],
  ['NUM_EQ', { value: '12' }, { f: '12.0' }, true],
  ['NUM_EQ', { value: '0' }, { f: '' }, true],
  ['NUM_EQ', { value: '16' }, { f: '0x10' }, true],
  ['NUM_EQ', { value: '1' }, { f: '1abc' }, false],
  ['NUM_EQ', { value: 'x' }, { f: 'x' }, false],
  ['NUM_GT', { value: '5' }, { f: '5.1' }, true],
  ['NUM_GTE', { value: '5' }, { f: '5' }, true],
  ['NUM_LT', { value: '5' }, { f: '5' }, false],
  ['NUM_LTE', { value: '5' }, { f: '4.9' }, true],
  ['NUM_LT', { value: '5' }, {}, false],
  ['DATE_AFTER', { value: '2022-01-22T13:00:00+02:00' }, { currentTime: '2022-01-22T11:30:00Z' }, true],
  ['DATE_BEFORE', { value: '2022-01-22T14:00:00+02:00' }, { currentTime: '2022-01-22T11:30:00Z' }, true],
  ['DATE_AFTER', { value: '2022-01-22T11:30:00Z' }, { currentTime: '2022-01-22T11:30:00Z' }, false],
  ['DATE_AFTER', { value: '2024-05-31T00:00:00Z' }, {}, true],
  ['DATE_BEFORE', { value: '2024-05-31T00:00:00Z' }, { currentTime: new Date('2024-01-01T00:00:00Z') }, true],
  ['DATE_AFTER', { value: 'garbage' }, {}, false],
  ['DATE_AFTER', { value: 'garbage', inverted: true }, {}, true],
  ['SEMVER_EQ', { value: '1.2.3' }, { f: '1.2.3' }, true],
  ['SEMVER_EQ', { value: '1.2.3' }, { f: 'v1.2.3' }, false],
  ['SEMVER_EQ', { value: '1.2.3' }, { f: '1.2.3+build' }, true],
  ['SEMVER_EQ', { value: '1.2' }, { f: '1.2' }, false],
  ['SEMVER_LT', { value: '2.0.0' }, { f: '2.0.0-rc' }, true],
  ['SEMVER_GT', { value: '1.0.0-alpha.9' }, { f: '1.0.0-alpha.10' }, true],
  ['SEMVER_LT', { value: '1.0.0-alpha.1' }, { f: '1.0.0-alpha' }, true],
  ['SEMVER_GTE', { value: '1.2.3' }, { f: '1.2.3' }, true],
  ['SEMVER_LTE', { value: '1.2.3' }, { f: '1.2.4' }, false],
  ['SEMVER_GT', { value: '1.0.0' }, {}, false],
  ['REGEX', { value: '^a.c$' }, { f: 'abc' }, true],
  ['REGEX', { value: 'b' }, { f: 'abc' }, true],
  ['REGEX', { value: '^B', caseInsensitive: true }, { f: 'bc' }, true],
  ['REGEX', { value: '(?=a)' }, { f: 'a' }, false],
  ['REGEX', { value: '(?=a)', inverted: true }, { f: 'a' }, true],
  ['REGEX', { value: null }, { f: 'a' }, false],
  ['REGEX', { value: 'a' }, {}, false],
  // patterns.ts: a value over the input bound, or a pattern over the program bound, never matches.
  ['REGEX', { value: 'a' }, { f: 'a'.repeat(4_096) }, true],
  ['REGEX', { value: 'a' }, { f: 'a'.repeat(4_097) }, false],
  ['REGEX', { value: 'a', inverted: true }, { f: 'a'.repeat(4_097) }, true],
  ['REGEX', { value: '.{1000}'.repeat(142) }, { f: 'x'.repeat(200_000) }, false],
  ['IN_CIDR', { values: ['10.0.0.0/8'] }, { f: '10.1.2.3' }, true],
  ['IN_CIDR', { values: ['10.0.0.0/8'] }, { f: '11.1.2.3' }, false],
  ['IN_CIDR', { values: ['bad', '::1'] }, { f: '0:0:0:0:0:0:0:1' }, true],
  ['IN_CIDR', { values: ['10.0.0.0/8'] }, { f: 'not-an-ip' }, false],
  ['IN_CIDR', { values: ['2001:db8::/32'] }, { f: '10.0.0.1' }, false],
  ['UNKNOWN_OP', { values: ['a'] }, { f: 'a' }, false],
  ['UNKNOWN_OP', { values: ['a'], inverted: true }, { f: 'a' }, false],
];

describe('constraint operators (docs/evaluation.md §6)', () => {
  it.each(rows)('%s %j with %j → %s', (operator, constraint, context, expected) => {
    const compiled = compileConstraint({ contextName: 'f', operator, ...constraint });
    expect(compiled.evaluate(prepareContext(context, env))).toBe(expected);
  });

  it('covers all 19 operators of docs/evaluation.md §0.6', () => {
    expect(new Set(rows.map(([operator]) => operator).filter((op) => op !== 'UNKNOWN_OP'))).toEqual(
      new Set(OPERATORS),
    );
    expect(OPERATORS).toHaveLength(19);
  });
});
