import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';

/**
 * The one place user-supplied regular expressions are compiled and matched (REGEX constraints,
 * project naming patterns), with RE2 semantics and bounded cost (security review, issue 43,
 * finding 2). RE2 matching is linear, but its factor is the program size: every engine of re2js
 * 2.10 costs up to instructions x input characters, and compiling costs about the instructions.
 *
 * Figures measured with re2js 2.10 on the 2-core shared machine of the review (under load):
 * - `.{1000}` x 142 (994 characters, valid RE2) compiles to 142,002 instructions in 155-350 ms,
 *   and a find on 20,000 characters takes 4.8-6 s. Refused here by the estimate, in microseconds.
 * - 2,000-instruction programs (`.{1000}.{990}[^ab]`, `[ab]*a[ab]{1000}[ab]{990}[^ab]`) take
 *   15-25 ms per find on 1,024 random characters: a fixed input bound of 1,024 cannot keep ~1 ms
 *   while `^.{0,255}$` (514 instructions) and alternations of a few hundred names (300 random names:
 *   2,845 instructions) stay allowed. Hence MATCH_BUDGET: instructions x characters at most 262,144
 *   (re2js's own backtracking bound), 0.6-2 ms per find in the worst cases above and 4-5 ms for an
 *   unanchored 300-name alternation, the worst measured.
 * - Programs near MAX_PROGRAM compile in 1.3 ms (`.{1000}.{1000}.{990}`, 2,993 instructions) and
 *   12 ms (300 random names, 2,772 instructions), warm, at a load average of 15 on 2 cores.
 * - Email-, semver-like and `^[a-z]+-[0-9]{3}$` patterns (10-65 instructions) match 4,096
 *   characters in 0.002 ms; `^.{0,255}$` in 0.06-0.16 ms.
 */

/** Pattern text longer than this is refused before anything else (300 names of ~12 characters fit). */
export const MAX_PATTERN_LENGTH = 4_096;
/** Instructions of the compiled program, checked after compiling. */
export const MAX_PROGRAM = 3_000;
/**
 * The pre-compile estimate (estimateProgramSize) may be this far above MAX_PROGRAM before a pattern
 * is refused unseen: it overcounts what RE2 factors (common prefixes of alternatives), and what it
 * lets through compiles in a few ms and is then held to MAX_PROGRAM.
 */
const MAX_ESTIMATE = 2 * MAX_PROGRAM;
/** The longest context value matched by a small program; longer values never match. */
export const MAX_INPUT = 4_096;
/** Instructions x input characters per match: a program's input bound is this over its size. */
export const MATCH_BUDGET = 262_144;

/**
 * Instructions (estimated) of patterns not compiled before that one validation under
 * withCompileBudget may compile: 9-90 ms of compiling at 0.45-4.4 us per instruction (the figures
 * above), e.g. six patterns at MAX_PROGRAM or 1,500 email patterns. Without it, a 50 MB import
 * validation of distinct allowed patterns would still compile for minutes.
 */
export const COMPILE_BUDGET = 20_000;
/** What one validation may still compile (estimated instructions of patterns not cached). */
export interface CompileBudget {
  left: number;
}

export const newCompileBudget = (): CompileBudget => ({ left: COMPILE_BUDGET });

/**
 * The budget of the validation running now. Set only around synchronous work (withCompileBudget),
 * so no other request can run while it is set; no AsyncLocalStorage, whose hooks would tax every
 * promise of the process once used (docs/adr/0009).
 */
let current: CompileBudget | undefined;

/**
 * Runs a synchronous validation with a compile budget: `budget` (an asynchronous validation, an
 * import, passes its document's around each synchronous step), else the one already running (an
 * outer validation's), else a fresh one. Once it is spent, patterns not compiled before are
 * refused (not cached: another request may compile them). Cached patterns are free.
 */
export function withCompileBudget<T>(run: () => T, budget?: CompileBudget): T {
  if (current !== undefined && budget === undefined) return run();
  const outer = current;
  current = budget ?? newCompileBudget();
  try {
    return run();
  } finally {
    current = outer;
  }
}

/** A compiled, accepted pattern. */
export interface UserPattern {
  /** Instructions of the compiled program (at most MAX_PROGRAM). */
  readonly instructions: number;
  /** The longest text `find` reads: min(MAX_INPUT, MATCH_BUDGET / instructions). */
  readonly maxInput: number;
  /** Whether the pattern matches anywhere in `text` (unanchored); false for a text over maxInput. */
  find(text: string): boolean;
}

export type PatternResult =
  | { ok: true; pattern: UserPattern }
  /** `tooLarge`: valid RE2 (or not yet known) but over a bound; else RE2 refuses the syntax. */
  | { ok: false; tooLarge: boolean; reason: string };

/**
 * Compiled patterns by flags and text, each distinct pattern compiled once per process: snapshots
 * rebuilt at every configuration revision, and validations, find their patterns here. Sized by
 * instructions (about 88 maximal programs, each a few hundred KB of objects); refusals weigh 1.
 */
const cache = new LRUCache<string, PatternResult>({
  max: 5_000,
  maxSize: 262_144,
  sizeCalculation: (result) => (result.ok ? result.pattern.instructions : 1),
});

/**
 * The pattern compiled with RE2 semantics (case-insensitive when asked), or why it is refused:
 * too long, an estimated program too large (never compiled), a compiled program too large, or
 * invalid RE2 syntax.
 */
export function compilePattern(text: string, caseInsensitive = false): PatternResult {
  if (text.length > MAX_PATTERN_LENGTH) {
    return tooLarge(`${text.length} characters, more than ${MAX_PATTERN_LENGTH}`);
  }
  const key = `${caseInsensitive ? 'i' : '-'}${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const estimate = estimateProgramSize(text);
  const budget = current;
  if (estimate <= MAX_ESTIMATE && budget !== undefined) {
    if (estimate > budget.left) {
      return {
        ok: false,
        tooLarge: true,
        reason: `regular expressions too many/large in one request: more than ${COMPILE_BUDGET} instructions to compile; send fewer or smaller patterns`,
      };
    }
    budget.left -= estimate;
  }
  const result = compileUncached(text, caseInsensitive, estimate);
  cache.set(key, result);
  return result;
}

function compileUncached(text: string, caseInsensitive: boolean, estimate: number): PatternResult {
  if (estimate > MAX_ESTIMATE) {
    return tooLarge(`its repetitions expand to about ${estimate} instructions, more than ${MAX_PROGRAM}`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(text, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return { ok: false, tooLarge: false, reason: 'not valid RE2 syntax' };
  }
  const instructions = re.programSize();
  if (instructions > MAX_PROGRAM) {
    return tooLarge(`it compiles to ${instructions} instructions, more than ${MAX_PROGRAM}`);
  }
  const maxInput = Math.min(MAX_INPUT, Math.floor(MATCH_BUDGET / Math.max(1, instructions)));
  // matcher().find() asks for the match position, which keeps re2js off its lazy DFA: building
  // DFA states cost 30-80 ms on a cold 1,024-character search of a 200-2,000-instruction program,
  // and adversarial inputs rebuild them on every search, while the backtracker and the NFA stay
  // within instructions x characters.
  const find = (value: string) => value.length <= maxInput && re.matcher(value).find();
  return { ok: true, pattern: { instructions, maxInput, find } };
}

function tooLarge(why: string): PatternResult {
  return { ok: false, tooLarge: true, reason: `regular expression too large/complex: ${why}` };
}

/** Whether the whole of `text` matches `pattern` (the anchoring Unleash applies to naming patterns). */
export function fullMatch(pattern: string, text: string): boolean {
  const result = compilePattern(anchored(pattern));
  return result.ok && result.pattern.find(text);
}

/** The pattern as fullMatch compiles it, for validating a naming pattern as it will be used. */
export function anchored(pattern: string): string {
  return `^(?:${pattern})$`;
}

interface Frame {
  /** Instructions of the finished alternatives and their ALT instructions. */
  done: number;
  /** Instructions of the alternative being read. */
  current: number;
  /** Instructions of its last atom (what a quantifier repeats). */
  last: number;
}

const COUNTED = /\{(\d+)(,(\d*))?\}/y;

/**
 * An estimate of the compiled program's instructions from the pattern text alone, in time linear
 * in its length: an atom (literal, class, escape, `.`) counts 1, a group 2 plus its alternatives
 * and one ALT per `|`, `*` `+` `?` one more, and a counted repetition multiplies what it repeats
 * (`x{n}` n copies, `x{n,m}` m copies and m-n ALTs, `x{n,}` n copies and 1), nested groups
 * multiplying again. It is within a few instructions of what re2js builds for repetitions (1,000
 * for `.{1000}`, whose program has 1,002; 142,000 for `.{1000}` x 142, in 0.4 ms) and above it for
 * alternatives that share prefixes (3,493 for 300 names `user<i>name`, compiled: 1,840).
 */
export function estimateProgramSize(pattern: string): number {
  const stack: Frame[] = [{ done: 0, current: 0, last: 0 }];
  const atom = (size: number) => {
    const top = stack[stack.length - 1]!;
    top.current += size;
    top.last = size;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      i = skipEscape(pattern, i, atom);
      continue;
    }
    if (c === '[') {
      i = skipClass(pattern, i);
      atom(1);
      continue;
    }
    if (c === '(') {
      const flags = /\(\?[a-zA-Z-]*\)/y;
      flags.lastIndex = i;
      if (flags.test(pattern)) {
        i = flags.lastIndex;
        continue;
      }
      stack.push({ done: 0, current: 0, last: 0 });
      i += 1;
      continue;
    }
    if (c === ')' && stack.length > 1) {
      const group = stack.pop()!;
      atom(group.done + group.current + 2);
      i += 1;
      continue;
    }
    if (c === '|') {
      top.done += top.current + 1;
      top.current = 0;
      top.last = 0;
      i += 1;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      top.current += 1;
      i += 1;
      continue;
    }
    if (c === '{') {
      COUNTED.lastIndex = i;
      const m = COUNTED.exec(pattern);
      if (m) {
        const n = Number(m[1]);
        const max = m[2] === undefined ? n : m[3] === '' ? n + 1 : Math.max(n, Number(m[3]));
        const copies = Math.max(1, max);
        const extra = top.last * (copies - 1) + (max - n);
        top.current += extra;
        top.last += extra;
        i = COUNTED.lastIndex;
        continue;
      }
    }
    atom(1);
    i += 1;
  }
  return stack.reduce((sum, frame) => sum + frame.done + frame.current, 0);
}

/** Skips an escape at `i` (`\Q…\E` counts each literal), counting its atoms; returns the next index. */
function skipEscape(pattern: string, i: number, atom: (size: number) => void): number {
  const next = pattern[i + 1];
  if (next === 'Q') {
    const end = pattern.indexOf('\\E', i + 2);
    const stop = end === -1 ? pattern.length : end;
    for (let k = i + 2; k < stop; k++) atom(1);
    return end === -1 ? stop : end + 2;
  }
  atom(1);
  if ((next === 'p' || next === 'P' || next === 'x') && pattern[i + 2] === '{') {
    const end = pattern.indexOf('}', i + 3);
    return end === -1 ? pattern.length : end + 1;
  }
  return i + 2;
}

/** Skips a character class at `i` (`[]…]`, `[^]…]`, escapes, `[:alpha:]`); returns the next index. */
function skipClass(pattern: string, i: number): number {
  let k = i + 1;
  if (pattern[k] === '^') k += 1;
  if (pattern[k] === ']') k += 1;
  while (k < pattern.length && pattern[k] !== ']') {
    if (pattern[k] === '\\') k += 2;
    else if (pattern.startsWith('[:', k)) {
      const end = pattern.indexOf(':]', k + 2);
      k = end === -1 ? k + 1 : end + 2;
    } else k += 1;
  }
  return k + 1;
}
