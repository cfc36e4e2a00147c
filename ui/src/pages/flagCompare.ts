import type { Constraint, FlagEnvironment, Strategy, Variant } from '../types';

/** The parts of a strategy the comparison looks at (the type is what pairs strategies up). */
export const STRATEGY_FIELDS = [
  'title',
  'disabled',
  'parameters',
  'constraints',
  'segments',
  'variants',
] as const;
export type StrategyField = (typeof STRATEGY_FIELDS)[number];

/**
 * One line of the comparison: a strategy found in both environments (`same` or `different`, with
 * the fields that differ), or in one of them only.
 */
export interface StrategyRow {
  left?: Strategy;
  right?: Strategy;
  status: 'same' | 'different' | 'only-left' | 'only-right';
  differences: StrategyField[];
}

export interface EnvironmentComparison {
  enabled: { left: boolean; right: boolean; differs: boolean };
  strategies: StrategyRow[];
  /** Nothing differs: the same on/off and the same strategies. */
  identical: boolean;
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** A constraint as compared: defaults filled in, values in order (their order means nothing). */
function constraintKey(c: Constraint): string {
  return JSON.stringify([
    c.contextName,
    c.operator,
    c.inverted ?? false,
    c.caseInsensitive ?? false,
    c.values ? [...c.values].sort() : null,
    c.value ?? null,
  ]);
}

function variantKey(v: Variant): string {
  return JSON.stringify([
    v.name,
    v.weight,
    v.weightType ?? 'variable',
    v.stickiness ?? 'default',
    v.payload ? [v.payload.type, v.payload.value] : null,
  ]);
}

/** Each field of a strategy as a string; two strategies differ in a field when these differ. */
function fieldKeys(s: Strategy): Record<StrategyField, string> {
  return {
    title: (s.title ?? '').trim(),
    disabled: String(s.disabled ?? false),
    parameters: JSON.stringify(Object.entries(s.parameters ?? {}).sort(byKey)),
    // All constraints must hold, so their order does not matter; nor does that of segments.
    constraints: JSON.stringify(s.constraints.map(constraintKey).sort()),
    segments: JSON.stringify([...new Set(s.segments ?? [])].sort((a, b) => a - b)),
    variants: JSON.stringify((s.variants ?? []).map(variantKey).sort()),
  };
}

/** The fields in which two strategies of the same type differ (empty: the same strategy). */
export function strategyDifferences(a: Strategy, b: Strategy): StrategyField[] {
  const ka = fieldKeys(a);
  const kb = fieldKeys(b);
  return STRATEGY_FIELDS.filter((f) => ka[f] !== kb[f]);
}

const ordered = (list: Strategy[]) => [...list].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));

/**
 * Compares a flag in two environments. Strategies get new ids in each environment, so they are
 * paired by content: first identical ones, then ones of the same type (and title, when one has a
 * title that matches) with the fewest differences. Rows follow the left environment's order; what
 * only the right one has comes last, in its order.
 */
export function compareEnvironments(left: FlagEnvironment, right: FlagEnvironment): EnvironmentComparison {
  const ls = ordered(left.strategies);
  const rs = ordered(right.strategies);
  const pairOf = new Map<number, number>(); // left index → right index
  const taken = new Set<number>();

  // 1. Identical strategies.
  ls.forEach((l, i) => {
    const j = rs.findIndex(
      (r, k) => !taken.has(k) && r.name === l.name && strategyDifferences(l, r).length === 0,
    );
    if (j >= 0) {
      pairOf.set(i, j);
      taken.add(j);
    }
  });
  // 2. The same type: the same title first, then the fewest differences, then the first.
  ls.forEach((l, i) => {
    if (pairOf.has(i)) return;
    let best = -1;
    let bestScore = Number.POSITIVE_INFINITY;
    rs.forEach((r, k) => {
      if (taken.has(k) || r.name !== l.name) return;
      const sameTitle = (r.title ?? '').trim() === (l.title ?? '').trim();
      const score = (sameTitle ? 0 : 100) + strategyDifferences(l, r).length;
      if (score < bestScore) {
        best = k;
        bestScore = score;
      }
    });
    if (best >= 0) {
      pairOf.set(i, best);
      taken.add(best);
    }
  });

  const strategies: StrategyRow[] = ls.map((l, i) => {
    const j = pairOf.get(i);
    if (j === undefined) return { left: l, status: 'only-left', differences: [] };
    const r = rs[j]!;
    const differences = strategyDifferences(l, r);
    return { left: l, right: r, status: differences.length ? 'different' : 'same', differences };
  });
  rs.forEach((r, k) => {
    if (!taken.has(k)) strategies.push({ right: r, status: 'only-right', differences: [] });
  });
  const enabled = { left: left.enabled, right: right.enabled, differs: left.enabled !== right.enabled };
  return {
    enabled,
    strategies,
    identical: !enabled.differs && strategies.every((s) => s.status === 'same'),
  };
}

/** How a row's difference reads, with the environments' names. */
export function describeRow(row: StrategyRow, leftName: string, rightName: string): string {
  switch (row.status) {
    case 'same':
      return 'Same';
    case 'only-left':
      return `Only in ${leftName}`;
    case 'only-right':
      return `Only in ${rightName}`;
    default:
      return `Different: ${row.differences.join(', ')}`;
  }
}
