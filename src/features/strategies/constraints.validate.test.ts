import { describe, expect, it } from 'vitest';
import { type ConstraintInput, constraintProblems, OPERATORS } from './constraints.validate.js';

type Case = [
  operator: string,
  good: Partial<ConstraintInput>,
  bad: Partial<ConstraintInput>,
  badPath: string,
];

/** Each of the 19 operators with one accepted and one refused constraint (and the path refused). */
const TABLE: Case[] = [
  ['IN', { values: ['a', 'b'] }, { values: [] }, '/values'],
  ['NOT_IN', { values: ['a'] }, { value: 'a' }, '/values'],
  ['STR_STARTS_WITH', { values: ['pre'] }, {}, '/values'],
  ['STR_ENDS_WITH', { values: ['.com'] }, { values: [] }, '/values'],
  ['STR_CONTAINS', { values: ['x'] }, { value: 'x' }, '/values'],
  [
    'IN_CIDR',
    { values: ['10.0.0.0/8', '::1', '192.168.1.1'] },
    { values: ['10.0.0.0/8', '300.1.1.1'] },
    '/values/1',
  ],
  ['NUM_EQ', { value: '12.5' }, { value: '12abc' }, '/value'],
  ['NUM_GT', { value: '-3' }, { value: ' ' }, '/value'],
  ['NUM_GTE', { value: '1e3' }, { values: ['1'] }, '/value'],
  ['NUM_LT', { value: '0' }, { value: 'ten' }, '/value'],
  ['NUM_LTE', { value: '100' }, { value: '' }, '/value'],
  ['DATE_AFTER', { value: '2025-01-31T12:00:00Z' }, { value: '2025-02-30T12:00:00Z' }, '/value'],
  ['DATE_BEFORE', { value: '2025-01-31T12:00:00.123+02:00' }, { value: '2025-01-31' }, '/value'],
  ['SEMVER_EQ', { value: '1.2.3' }, { value: 'v1.2.3' }, '/value'],
  ['SEMVER_GT', { value: '1.2.3-rc.1' }, { value: '1.2' }, '/value'],
  ['SEMVER_LT', { value: '2.0.0+build.5' }, { value: '01.2.3' }, '/value'],
  ['SEMVER_GTE', { value: '0.0.1' }, { value: '=1.2.3' }, '/value'],
  ['SEMVER_LTE', { value: '10.20.30' }, { value: 'latest' }, '/value'],
  ['REGEX', { value: '^user-[0-9]+$' }, { value: '(?=lookahead)' }, '/value'],
];

describe('constraint validation table', () => {
  it('covers all 19 operators', () => {
    expect(TABLE.map((c) => c[0]).sort()).toEqual([...OPERATORS].sort());
    expect(OPERATORS).toHaveLength(19);
  });

  it.each(TABLE)('%s accepts a good constraint', (operator, good) => {
    expect(constraintProblems({ contextName: 'userId', operator, ...good }, '/c')).toEqual([]);
  });

  it.each(TABLE)('%s refuses a bad constraint, naming the field', (operator, _good, bad, badPath) => {
    const problems = constraintProblems({ contextName: 'userId', operator, ...bad }, '/body/constraints/0');
    expect(problems.map((p) => p.path)).toEqual([`/body/constraints/0${badPath}`]);
    expect(problems[0]?.message).toMatch(/\S/);
  });

  it('refuses an unknown operator and an empty context name', () => {
    const problems = constraintProblems({ contextName: ' ', operator: 'LIKE', values: ['a'] }, '/c');
    expect(problems.map((p) => p.path)).toEqual(['/c/contextName', '/c/operator']);
  });

  it('refuses lower-case operator names (operators are exact)', () => {
    expect(constraintProblems({ contextName: 'x', operator: 'in', values: ['a'] }, '/c')).toHaveLength(1);
  });
});
