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
 * Measures a JSON value without serialising it. Iterative (an explicit stack of containers; scalars
 * are counted where they are met), so a value nested deeper than the call stack is measured rather
 * than overflowing it, and it stops as soon as a bound is passed: the work is proportional to the
 * smaller of the value and the bounds.
 */
export function measureJson(
  value: unknown,
  bounds: { maxSize?: number; maxDepth?: number } = {},
): JsonMeasure {
  const maxSize = bounds.maxSize ?? Number.POSITIVE_INFINITY;
  const maxDepth = bounds.maxDepth ?? Number.POSITIVE_INFINITY;
  if (typeof value !== 'object' || value === null) {
    const size = scalarSize(value);
    return { size, depth: 0, over: size > maxSize };
  }
  let size = 0;
  let depth = 0;
  // Two stacks side by side (no pair allocated per container): a container and its depth.
  const containers: object[] = [value];
  const levels: number[] = [1];
  const visit = (child: unknown, level: number) => {
    if (typeof child === 'object' && child !== null) {
      containers.push(child);
      levels.push(level);
    } else size += scalarSize(child);
  };
  while (containers.length > 0) {
    const current = containers.pop() as object;
    const level = levels.pop() as number;
    if (level > depth) depth = level;
    if (depth > maxDepth) return { size, depth, over: true };
    size += 2;
    if (Array.isArray(current)) {
      for (const item of current) {
        size += 1;
        visit(item, level + 1);
        if (size > maxSize) return { size, depth, over: true };
      }
    } else {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        size += key.length + 4;
        visit((current as Record<string, unknown>)[key], level + 1);
        if (size > maxSize) return { size, depth, over: true };
      }
    }
  }
  return { size, depth, over: size > maxSize };
}

/**
 * Whether a JSON value nests deeper than `maxDepth`: the cheap check for every request body. It
 * walks one level at a time and keeps only containers, so it touches each container once and each
 * scalar once, allocating nothing per scalar.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  let level: object[] = typeof value === 'object' && value !== null ? [value] : [];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > maxDepth) return true;
    const next: object[] = [];
    for (const container of level) {
      const children = Array.isArray(container) ? container : Object.values(container);
      for (const child of children) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
  return false;
}
