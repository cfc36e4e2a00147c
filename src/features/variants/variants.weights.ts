import { type ErrorDetail, invalid } from '../../platform/http/errors.js';

/** The variant fields weight normalisation reads; everything else passes through unchanged. */
export interface WeightedVariant {
  name: string;
  weight: number;
  /** Absent means `variable`. */
  weightType?: string;
}

const isFixed = (v: WeightedVariant) => v.weightType === 'fix';

/**
 * What makes a variant list impossible to normalise (docs/evaluation.md §9.4): no `variable` variant in
 * a non-empty list, fixed weights above 1000 in total, a name used twice. `base` is the list's
 * path in the request (`/body/variants`).
 */
export function variantWeightProblems(variants: WeightedVariant[], base: string): ErrorDetail[] {
  if (variants.length === 0) return [];
  const problems: ErrorDetail[] = [];
  if (variants.every(isFixed)) {
    problems.push({ path: base, message: 'There must be at least one "variable" variant.' });
  }
  const fixed = variants.filter(isFixed).reduce((sum, v) => sum + v.weight, 0);
  if (fixed > 1000) {
    problems.push({ path: base, message: `The fixed weights total ${fixed}, more than 1000 (100%).` });
  }
  const seen = new Set<string>();
  variants.forEach((v, i) => {
    if (seen.has(v.name)) {
      problems.push({ path: `${base}/${i}/name`, message: `The variant name "${v.name}" is used twice.` });
    }
    seen.add(v.name);
  });
  return problems;
}

/**
 * Unleash's write-time `fixVariantWeights` (§9.4): fixed weights are kept, variable variants share
 * what the fixed ones leave of 1000 (the first `remainder` variable variants in input order get one
 * more), and the result is sorted by name with `localeCompare` (bucketing walks the stored order,
 * so the order is part of the contract). Call only on a list variantWeightProblems accepted.
 */
export function normaliseVariantWeights<T extends WeightedVariant>(variants: T[]): T[] {
  const variable = variants.filter((v) => !isFixed(v));
  if (variable.length === 0) return [...variants];
  const left = 1000 - variants.filter(isFixed).reduce((sum, v) => sum + v.weight, 0);
  const share = Math.floor(left / variable.length);
  const remainder = left % variable.length;
  const shared = variable.map((v, i) => ({ ...v, weight: share + (i < remainder ? 1 : 0) }));
  return [...shared, ...variants.filter(isFixed).map((v) => ({ ...v }))].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}

/** Checks then normalises, answering 400 with every problem. */
export function fixVariantWeights<T extends WeightedVariant>(variants: T[], path = '/body'): T[] {
  const problems = variantWeightProblems(variants, path);
  if (problems.length > 0) throw invalid(problems[0]?.message ?? 'Invalid variants', problems);
  return normaliseVariantWeights(variants);
}
