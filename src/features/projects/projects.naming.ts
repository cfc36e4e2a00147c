import { anchored, compilePattern, fullMatch } from '../../evaluation/index.js';
import { invalidField } from '../../platform/http/errors.js';
import type { FeatureNamingInput } from './projects.schemas.js';

export interface FeatureNaming {
  pattern: string | null;
  example: string | null;
  description: string | null;
}

export const NO_NAMING: FeatureNaming = { pattern: null, example: null, description: null };

// A literal whitespace character or one of the escapes \t \s \n \r \f \v, refused as Unleash
// refuses them (docs/api.md §5).
const WHITESPACE = /\s|\\[tsnrfv]/;

/**
 * Checks a naming rule and returns it normalised (empty strings are no value). `path` is the
 * rule's place in the body, e.g. `/body/featureNaming`. RE2 semantics: the pattern must compile
 * as RE2 does, and the example must match it in full.
 */
export function checkFeatureNaming(input: FeatureNamingInput | null, path: string): FeatureNaming {
  if (input === null) return NO_NAMING;
  const pattern = input.pattern || null;
  const example = input.example || null;
  const description = input.description || null;
  if (pattern === null) {
    if (example !== null) throw invalidField(`${path}/example`, 'An example needs a pattern to match.');
    if (description !== null) {
      throw invalidField(`${path}/description`, 'A description needs a pattern to describe.');
    }
    return NO_NAMING;
  }
  if (WHITESPACE.test(pattern)) {
    throw invalidField(`${path}/pattern`, 'The pattern may not contain spaces or whitespace escapes.');
  }
  // Checked as fullMatch compiles it, anchored, so that an accepted pattern is one it can use.
  const compiled = compilePattern(anchored(pattern));
  if (!compiled.ok && compiled.tooLarge)
    throw invalidField(`${path}/pattern`, `The pattern is refused: ${compiled.reason}.`);
  if (!compiled.ok) {
    throw invalidField(`${path}/pattern`, `"${pattern}" is not a valid regular expression.`);
  }
  if (example !== null && !fullMatch(pattern, example)) {
    throw invalidField(
      `${path}/example`,
      `The example "${example}" does not match the pattern "${pattern}".`,
    );
  }
  return { pattern, example, description };
}
