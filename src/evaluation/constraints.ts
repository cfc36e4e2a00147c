import { Address4, Address6 } from 'ip-address';
import { parse as parseSemver, type SemVer } from 'semver';
import { type ContextView, resolveContextValue } from './context.js';
import { compilePattern } from './patterns.js';
import type { ConstraintInput } from './types.js';

/** A constraint whose operands were parsed when the snapshot was built (docs/evaluation.md §0.10). */
export interface CompiledConstraint {
  input: ConstraintInput;
  /** The operator result after `inverted`; an unknown operator is false, never inverted (§6.1). */
  evaluate(view: ContextView): boolean;
}

type Matcher = (view: ContextView) => boolean;

/** The 19 operators of §0.6. */
export const OPERATORS = [
  'NOT_IN',
  'IN',
  'STR_ENDS_WITH',
  'STR_STARTS_WITH',
  'STR_CONTAINS',
  'NUM_EQ',
  'NUM_GT',
  'NUM_GTE',
  'NUM_LT',
  'NUM_LTE',
  'DATE_AFTER',
  'DATE_BEFORE',
  'SEMVER_EQ',
  'SEMVER_GT',
  'SEMVER_LT',
  'SEMVER_GTE',
  'SEMVER_LTE',
  'REGEX',
  'IN_CIDR',
] as const;

export type Operator = (typeof OPERATORS)[number];

export function compileConstraint(input: ConstraintInput): CompiledConstraint {
  const matcher = compileMatcher(input);
  if (!matcher) return { input, evaluate: () => false };
  const evaluate: Matcher = input.inverted ? (view) => !matcher(view) : matcher;
  return { input, evaluate };
}

function compileMatcher(input: ConstraintInput): Matcher | undefined {
  switch (input.operator) {
    case 'IN':
    case 'NOT_IN':
      return compileIn(input);
    case 'STR_ENDS_WITH':
    case 'STR_STARTS_WITH':
    case 'STR_CONTAINS':
      return compileString(input);
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE':
      return compileNumber(input);
    case 'DATE_AFTER':
    case 'DATE_BEFORE':
      return compileDate(input);
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_LT':
    case 'SEMVER_GTE':
    case 'SEMVER_LTE':
      return compileSemver(input);
    case 'REGEX':
      return compileRegex(input);
    case 'IN_CIDR':
      return compileCidr(input);
    default:
      return undefined;
  }
}

/** §6.1: empty strings dropped, the rest trimmed; the context value is never trimmed. */
function cleanValues(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  return values
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .map((v) => v.trim());
}

/** IN/NOT_IN are case-sensitive: the SDK ignores `caseInsensitive` here (§13 C1, §0.5). */
function compileIn(input: ConstraintInput): Matcher {
  const values = new Set(cleanValues(input.values));
  const wantIn = input.operator === 'IN';
  return ({ context }) => {
    const value = resolveContextValue(context, input.contextName);
    return (value !== undefined && values.has(value)) === wantIn;
  };
}

function compileString(input: ConstraintInput): Matcher {
  const fold = input.caseInsensitive === true;
  const values = cleanValues(input.values).map((v) => (fold ? v.toLocaleLowerCase() : v));
  const test =
    input.operator === 'STR_STARTS_WITH'
      ? (s: string, v: string) => s.startsWith(v)
      : input.operator === 'STR_ENDS_WITH'
        ? (s: string, v: string) => s.endsWith(v)
        : (s: string, v: string) => s.includes(v);
  return ({ context }) => {
    const raw = resolveContextValue(context, input.contextName);
    if (raw === undefined) return false;
    const value = fold ? raw.toLocaleLowerCase() : raw;
    return values.some((v) => test(value, v));
  };
}

const numberCompare: Record<string, (a: number, b: number) => boolean> = {
  NUM_EQ: (a, b) => a === b,
  NUM_GT: (a, b) => a > b,
  NUM_GTE: (a, b) => a >= b,
  NUM_LT: (a, b) => a < b,
  NUM_LTE: (a, b) => a <= b,
};

/** JS `Number` semantics on both sides (`""` is 0, `null` value is 0); NaN never matches (§6.2). */
function compileNumber(input: ConstraintInput): Matcher | undefined {
  const b = Number(input.value);
  const compare = numberCompare[input.operator]!;
  if (Number.isNaN(b)) return () => false;
  return ({ context }) => {
    const a = Number(resolveContextValue(context, input.contextName));
    return !Number.isNaN(a) && compare(a, b);
  };
}

/** Ignores `contextName`: compares `currentTime` (or now), strictly, with JS `Date` parsing (§6.2). */
function compileDate(input: ConstraintInput): Matcher {
  const bound = new Date(input.value as string).getTime();
  if (input.operator === 'DATE_AFTER') return ({ now }) => now.getTime() > bound;
  return ({ now }) => now.getTime() < bound;
}

const semverCompare: Record<string, (order: number) => boolean> = {
  SEMVER_EQ: (order) => order === 0,
  SEMVER_GT: (order) => order > 0,
  SEMVER_LT: (order) => order < 0,
  SEMVER_GTE: (order) => order >= 0,
  SEMVER_LTE: (order) => order <= 0,
};

/**
 * node-semver precedence; the context value must be valid semver and must not start with `v`
 * (the SDK rejects it explicitly, §13 C3); an invalid constraint value never matches (§6.2).
 */
function compileSemver(input: ConstraintInput): Matcher {
  const target: SemVer | null = typeof input.value === 'string' ? parseSemver(input.value) : null;
  const accept = semverCompare[input.operator]!;
  if (!target) return () => false;
  return ({ context }) => {
    const raw = resolveContextValue(context, input.contextName);
    if (!raw || raw.startsWith('v')) return false;
    const version = parseSemver(raw);
    return version !== null && accept(version.compare(target));
  };
}

/**
 * RE2 syntax (linear time), unanchored `find`; an invalid pattern, one over the bounds of
 * patterns.ts, or a context value longer than the pattern's input bound never matches (§6.3).
 * Compiled here, when the snapshot is built, once per distinct pattern (patterns.ts caches them).
 */
function compileRegex(input: ConstraintInput): Matcher {
  if (typeof input.value !== 'string') return () => false;
  const compiled = compilePattern(input.value, Boolean(input.caseInsensitive));
  if (!compiled.ok) return () => false;
  const { pattern } = compiled;
  return ({ context }) => {
    const value = resolveContextValue(context, input.contextName);
    return value !== undefined && pattern.find(value);
  };
}

/** Parses an IPv4 or IPv6 address or CIDR range; undefined when it is neither. */
export function parseAddress(text: string): Address4 | Address6 | undefined {
  try {
    if (Address4.isValid(text)) return new Address4(text);
    if (Address6.isValid(text)) return new Address6(text);
  } catch {
    // isValid and the constructor agree; the guard only keeps a library bug from escaping.
  }
  return undefined;
}

/**
 * The context value must be an IPv4 or IPv6 address, optionally with a prefix length. A value of
 * the same family matches when its address part equals the context's address part (prefixes
 * ignored: `10.0.0.5/8` matches `10.0.0.5`, `10.0.0.0/16` matches `10.0.0.0/24`) or when it is a
 * range containing the context's range; invalid values are ignored (§6.3).
 */
function compileCidr(input: ConstraintInput): Matcher {
  const ranges = cleanValues(input.values)
    .map(parseAddress)
    .filter((range) => range !== undefined);
  const v4 = ranges.filter((range): range is Address4 => range instanceof Address4);
  const v6 = ranges.filter((range): range is Address6 => range instanceof Address6);
  const v4Forms = new Set(v4.map((range) => range.correctForm()));
  const v6Forms = new Set(v6.map((range) => range.correctForm()));
  return ({ context }) => {
    const raw = resolveContextValue(context, input.contextName);
    const address = raw === undefined ? undefined : parseAddress(raw);
    if (address instanceof Address4) {
      return v4Forms.has(address.correctForm()) || v4.some((range) => address.isInSubnet(range));
    }
    if (address instanceof Address6) {
      return v6Forms.has(address.correctForm()) || v6.some((range) => address.isInSubnet(range));
    }
    return false;
  };
}
