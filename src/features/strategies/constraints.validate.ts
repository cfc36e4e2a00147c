import { Address4, Address6 } from 'ip-address';
import semver from 'semver';
import { compilePattern, OPERATORS, type Operator, withCompileBudget } from '../../evaluation/index.js';
import type { ErrorDetail } from '../../platform/http/errors.js';

/** The 19 operators the admin API accepts (docs/evaluation.md §0.6); any other is a 400. */
export { OPERATORS, type Operator };

/** Operators that read the single `value` (numbers, dates, versions, a pattern); the rest read `values`. */
const isSingleValue = (operator: Operator) => /^(NUM_|DATE_|SEMVER_)|^REGEX$/.test(operator);
export const SINGLE_VALUE_OPERATORS = OPERATORS.filter(isSingleValue);
export const MULTI_VALUE_OPERATORS = OPERATORS.filter((o) => !isSingleValue(o));

export interface ConstraintInput {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  caseInsensitive?: boolean;
  inverted?: boolean;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** An RFC 3339 date-time with a real calendar date (no 30 February) and in-range clock fields. */
export function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 60 &&
    offsetOk &&
    !Number.isNaN(Date.parse(value))
  );
}

/** Valid semver as the SDK reads it: no leading `v` or `=` (the SDK refuses them), no padding. */
export function isStrictSemver(value: string): boolean {
  return value === value.trim() && !/^[v=]/i.test(value) && semver.valid(value) !== null;
}

/** A number as JavaScript's Number() reads it (what the SDK does), but not blank. */
export function isNumeric(value: string): boolean {
  return value.trim() !== '' && !Number.isNaN(Number(value));
}

/** An IPv4 or IPv6 address, optionally with a CIDR prefix length. */
export function isIpOrCidr(value: string): boolean {
  return Address4.isValid(value) || Address6.isValid(value);
}

/** Why a REGEX value is refused: RE2 cannot compile it, or it is over the bounds of evaluation/patterns.ts. */
function patternProblem(value: string, caseInsensitive: boolean): string | undefined {
  const result = compilePattern(value, caseInsensitive);
  if (result.ok) return undefined;
  return result.tooLarge ? `is refused: ${result.reason}` : 'must be a valid regular expression (RE2 syntax)';
}

function checkValue(operator: Operator, value: string, caseInsensitive: boolean): string | undefined {
  if (operator.startsWith('NUM_')) return isNumeric(value) ? undefined : 'must be a number';
  if (operator.startsWith('DATE_'))
    return isRfc3339(value) ? undefined : 'must be an RFC 3339 date-time, e.g. 2025-01-31T12:00:00Z';
  if (operator.startsWith('SEMVER_'))
    return isStrictSemver(value) ? undefined : 'must be a valid semantic version, e.g. 1.2.3 (no leading v)';
  if (operator === 'REGEX') return patternProblem(value, caseInsensitive);
  return undefined;
}

/**
 * Checks one constraint beyond its JSON shape: a known operator, `values` for the multi-value
 * operators and `value` for the single-value ones, and values that parse for their operator.
 * Returns every problem found, each with its path under `base` (e.g. `/body/constraints/0`).
 */
export function constraintProblems(c: ConstraintInput, base: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const add = (path: string, message: string) => problems.push({ path: `${base}${path}`, message });
  if (typeof c.contextName !== 'string' || c.contextName.trim() === '') {
    add('/contextName', `The \`${base}/contextName\` property must be a non-empty string.`);
  }
  if (!(OPERATORS as readonly string[]).includes(c.operator)) {
    add(
      '/operator',
      `The \`${base}/operator\` property must be one of ${OPERATORS.join(', ')}. You sent ${JSON.stringify(c.operator)}.`,
    );
    return problems;
  }
  const operator = c.operator as Operator;
  if ((MULTI_VALUE_OPERATORS as readonly string[]).includes(operator)) {
    if (!Array.isArray(c.values) || c.values.length === 0) {
      add('/values', `The ${operator} operator needs a non-empty \`values\` list.`);
    } else if (operator === 'IN_CIDR') {
      c.values.forEach((v, i) => {
        if (!isIpOrCidr(v)) add(`/values/${i}`, `"${v}" is not an IP address or CIDR range.`);
      });
    }
    return problems;
  }
  if (typeof c.value !== 'string' || c.value === '') {
    add('/value', `The ${operator} operator needs a non-empty \`value\`.`);
    return problems;
  }
  const wrong = checkValue(operator, c.value, c.caseInsensitive === true);
  if (wrong) add('/value', `The ${operator} value ${quoted(c.value)} ${wrong}.`);
  return problems;
}

/** The value as a message quotes it: its first 100 characters, so a refused 1 MB value is not echoed. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/** Every problem of every constraint in a list at `base` (e.g. `/body/constraints`). */
export function constraintsProblems(constraints: ConstraintInput[] | undefined, base: string): ErrorDetail[] {
  // One compile budget per list (up to 1,000 constraints), or the caller's for a whole document.
  return withCompileBudget(() =>
    (constraints ?? []).flatMap((c, i) => constraintProblems(c, `${base}/${i}`)),
  );
}

/** The constraint as stored: the known properties, `caseInsensitive` and `inverted` defaulting to false. */
export function storedConstraint(c: ConstraintInput): ConstraintInput {
  return {
    contextName: c.contextName,
    operator: c.operator,
    ...(c.values !== undefined && { values: c.values }),
    ...(c.value !== undefined && { value: c.value }),
    caseInsensitive: c.caseInsensitive ?? false,
    inverted: c.inverted ?? false,
  };
}
