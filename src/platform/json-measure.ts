/**
 * The deepest nesting a request body (JSON or YAML) or a patched document may have; a scalar is 0
 * levels, `{}` 1. The deepest legitimate bodies are import and state files (8 levels in
 * test/golden/transfer-roundtrip.json: document → environments → strategies → constraints →
 * values); addon parameters, playground contexts and variant payloads (a string) are flatter. 64
 * leaves eight times that, and stays far below the few thousand levels at which `JSON.stringify`
 * and `structuredClone` overflow the call stack on Node 20 (the 500s of issue 43, finding 5).
 */
export const MAX_JSON_DEPTH = 64;

export interface JsonMeasure {
  /** About the length of the value's JSON text (strings unescaped), counted up to the bound. */
  size: number;
  /** The deepest nesting seen: 0 for a scalar, 1 for `{}` or `[]`. */
  depth: number;
  /** Whether counting stopped because `size` passed `maxSize` or `depth` passed `maxDepth`. */
  over: boolean;
}

function scalarSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return String(value).length;
    case 'boolean':
      return value ? 4 : 5;
    default:
      return value === null ? 4 : 0;
  }
}

/**
 * Measures a JSON value without serialising it. Iterative (an explicit stack), so a value nested
 * deeper than the call stack is measured rather than overflowing it, and it stops as soon as a
 * bound is passed: the work is proportional to the smaller of the value and the bounds.
 */
export function measureJson(
  value: unknown,
  bounds: { maxSize?: number; maxDepth?: number } = {},
): JsonMeasure {
  const maxSize = bounds.maxSize ?? Number.POSITIVE_INFINITY;
  const maxDepth = bounds.maxDepth ?? Number.POSITIVE_INFINITY;
  let size = 0;
  let depth = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, level] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) {
      size += scalarSize(current);
      if (size > maxSize) return { size, depth, over: true };
      continue;
    }
    depth = Math.max(depth, level + 1);
    if (depth > maxDepth) return { size, depth, over: true };
    size += 2;
    if (Array.isArray(current)) {
      for (const item of current) {
        size += 1;
        if (size > maxSize) return { size, depth, over: true };
        stack.push([item, level + 1]);
      }
    } else {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        size += key.length + 4;
        if (size > maxSize) return { size, depth, over: true };
        stack.push([(current as Record<string, unknown>)[key], level + 1]);
      }
    }
  }
  return { size, depth, over: false };
}
