import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import {
  COMPILE_BUDGET,
  compilePattern,
  estimateProgramSize,
  fullMatch,
  MATCH_BUDGET,
  MAX_INPUT,
  MAX_PATTERN_LENGTH,
  MAX_PROGRAM,
  withCompileBudget,
} from './patterns.js';

/** 300 distinct names of 6-12 letters, as an alternation (what a list of users looks like). */
const names = Array.from({ length: 300 }, (_, i) => `user${i.toString(36)}x${'abcdefg'.slice(0, i % 7)}`);
const NAMES = `^(?:${names.join('|')})$`;

const accepted = (pattern: string, caseInsensitive = false) => {
  const result = compilePattern(pattern, caseInsensitive);
  if (!result.ok) throw new Error(`refused ${pattern.slice(0, 40)}: ${result.reason}`);
  return result.pattern;
};

describe('user patterns (evaluation/patterns.ts)', () => {
  it.each([
    ['an email', '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', 'ana@example.com'],
    ['a semver', '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?$', '1.20.3-beta.1'],
    ['a code', '^[a-z]+-[0-9]{3}$', 'abc-123'],
    ['a bounded length', '^.{0,255}$', 'x'.repeat(255)],
    ['300 names', NAMES, names[299]!],
  ])('accepts %s and matches with it', (_, pattern, text) => {
    const compiled = accepted(pattern);
    expect(compiled.instructions).toBeLessThanOrEqual(MAX_PROGRAM);
    expect(compiled.find(text)).toBe(true);
  });

  it('gives each program an input bound from the match budget', () => {
    expect(accepted('^[a-z]+-[0-9]{3}$').maxInput).toBe(MAX_INPUT);
    const bounded = accepted('^.{0,255}$');
    expect(bounded.maxInput).toBe(Math.floor(MATCH_BUDGET / bounded.instructions));
    expect(bounded.maxInput).toBeGreaterThanOrEqual(255);
    const names300 = accepted(NAMES);
    expect(names300.maxInput).toBeGreaterThanOrEqual(64);
  });

  it('never matches a text longer than the input bound, inside it as RE2 does', () => {
    const a = accepted('a');
    expect(a.find(`${'b'.repeat(MAX_INPUT - 1)}a`)).toBe(true);
    expect(a.find(`${'b'.repeat(MAX_INPUT)}a`)).toBe(false);
  });

  it('refuses `.{1000}` x 142 from its estimate, without compiling it', () => {
    const pattern = '.{1000}'.repeat(142);
    expect(estimateProgramSize(pattern)).toBe(142_000);
    const started = performance.now();
    const result = compilePattern(pattern);
    // RE2JS.compile takes 155-350 ms on it; the estimate reads 994 characters once.
    expect(performance.now() - started).toBeLessThan(50);
    expect(result).toEqual({
      ok: false,
      tooLarge: true,
      reason: `regular expression too large/complex: its repetitions expand to about 142000 instructions, more than ${MAX_PROGRAM}`,
    });
  });

  it('estimates nested repetitions multiplied, and close to the compiled size', () => {
    expect(estimateProgramSize('(?:(?:x{10}){10}){10}')).toBeGreaterThanOrEqual(1_000);
    for (const pattern of [
      '.{1000}',
      '^.{0,255}$',
      'a{2,}b{0,}c{3,7}',
      '(?i)abc[\\]x]{3,5}\\Qa.b\\E\\p{Greek}+',
    ]) {
      const real = RE2JS.compile(pattern).programSize();
      expect(Math.abs(estimateProgramSize(pattern) - real)).toBeLessThanOrEqual(real / 2 + 4);
    }
  });

  it('refuses a compiled program over the bound that the estimate let through', () => {
    const result = compilePattern('.{1000}.{1000}.{1000}.{1000}');
    expect(result).toEqual({
      ok: false,
      tooLarge: true,
      reason: `regular expression too large/complex: it compiles to 4002 instructions, more than ${MAX_PROGRAM}`,
    });
  });

  it('refuses a pattern text over the length bound', () => {
    const result = compilePattern('a'.repeat(MAX_PATTERN_LENGTH + 1));
    expect(result).toMatchObject({ ok: false, tooLarge: true });
    expect(result.ok || result.reason).toBe(
      `regular expression too large/complex: ${MAX_PATTERN_LENGTH + 1} characters, more than ${MAX_PATTERN_LENGTH}`,
    );
    expect(compilePattern('\\d'.repeat(MAX_PATTERN_LENGTH / 2)).ok).toBe(true);
  });

  it('tells invalid syntax from size', () => {
    expect(compilePattern('(?=a)')).toEqual({ ok: false, tooLarge: false, reason: 'not valid RE2 syntax' });
    expect(compilePattern('a{1001}')).toMatchObject({ ok: false, tooLarge: false });
  });

  it('compiles each distinct pattern once per case sensitivity', () => {
    const first = compilePattern('^cached-[0-9]+$');
    expect(compilePattern('^cached-[0-9]+$')).toBe(first);
    const folded = compilePattern('^cached-[0-9]+$', true);
    expect(folded).not.toBe(first);
    expect(compilePattern('^cached-[0-9]+$', true)).toBe(folded);
    expect(folded.ok && folded.pattern.find('CACHED-1')).toBe(true);
    expect(first.ok && first.pattern.find('CACHED-1')).toBe(false);
  });

  it('full-matches naming patterns anchored', () => {
    expect(fullMatch('[a-z]+', 'abc')).toBe(true);
    expect(fullMatch('[a-z]+', 'abc1')).toBe(false);
    expect(fullMatch('a|b', 'ab')).toBe(false);
    expect(fullMatch('.{1000}'.repeat(142), 'x')).toBe(false);
  });

  it('holds one validation to its compile budget; cached patterns are free', () => {
    const seen = compilePattern('^budget-seen-.{1000}$');
    const results = withCompileBudget(() => {
      const fresh = Array.from({ length: 20 }, (_, i) => compilePattern(`^budget-${i}-.{1000}.{990}$`));
      return { fresh, seen: compilePattern('^budget-seen-.{1000}$') };
    });
    const compiled = results.fresh.filter((r) => r.ok).length;
    expect(compiled).toBe(Math.floor(COMPILE_BUDGET / estimateProgramSize('^budget-0-.{1000}.{990}$')));
    expect(results.fresh.at(-1)).toEqual({
      ok: false,
      tooLarge: true,
      reason: `regular expressions too many/large in one request: more than ${COMPILE_BUDGET} instructions to compile; send fewer or smaller patterns`,
    });
    expect(results.seen).toBe(seen);
    // Refused for the budget only: outside it, the same pattern compiles.
    expect(compilePattern('^budget-19-.{1000}.{990}$').ok).toBe(true);
  });
});
