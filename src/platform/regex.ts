import { RE2JS } from 're2js';

/**
 * Compiles a user-supplied pattern with RE2 semantics (linear-time matching, so no input can make
 * it hang). Returns undefined for an invalid pattern.
 */
export function compileUserPattern(pattern: string, flags = 0): RE2JS | undefined {
  try {
    return RE2JS.compile(pattern, flags);
  } catch {
    return undefined;
  }
}

/** Whether the whole of `text` matches `pattern` (the anchoring Unleash applies to naming patterns). */
export function fullMatch(pattern: string, text: string): boolean {
  return compileUserPattern(`^(?:${pattern})$`)?.matches(text) ?? false;
}
