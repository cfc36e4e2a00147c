import type { Variant } from './types';

/** Weights are in tenths of a percent: 1000 is 100%. */
export const TOTAL = 1000;

const isFixed = (v: Variant) => v.weightType === 'fix';

/**
 * The weights the server will store (docs/evaluation.md §9.4, the same rule as Unleash): fixed
 * weights are kept, variable variants share what the fixed ones leave of 1000, and the first
 * `remainder` variable variants (in list order) get one more. Returned in the list's order.
 */
export function splitWeights(variants: Variant[]): number[] {
  const variable = variants.filter((v) => !isFixed(v)).length;
  const left = Math.max(0, TOTAL - variants.filter(isFixed).reduce((sum, v) => sum + v.weight, 0));
  const share = variable ? Math.floor(left / variable) : 0;
  let remainder = variable ? left % variable : 0;
  return variants.map((v) => {
    if (isFixed(v)) return v.weight;
    const extra = remainder > 0 ? 1 : 0;
    remainder -= extra;
    return share + extra;
  });
}

/** 505 → "50.5%". */
export const percent = (weight: number) => `${Number((weight / 10).toFixed(1))}%`;

/** Why a payload would be refused or misread: JSON that does not parse, a number that is not one. */
export function payloadProblem(payload: Variant['payload']): string | undefined {
  if (!payload) return undefined;
  if (payload.type === 'json') {
    try {
      JSON.parse(payload.value);
    } catch {
      return 'Not valid JSON.';
    }
  }
  if (payload.type === 'number' && (payload.value.trim() === '' || !Number.isFinite(Number(payload.value)))) {
    return 'Not a number.';
  }
  return undefined;
}

/** What keeps a variant list from saving as shown, in words; empty when it is fine. */
export function variantProblems(variants: Variant[]): string[] {
  if (variants.length === 0) return [];
  const problems: string[] = [];
  const total = splitWeights(variants).reduce((sum, w) => sum + w, 0);
  if (total !== TOTAL) problems.push(`The weights total ${percent(total)}, not 100%.`);
  if (variants.every(isFixed)) problems.push('At least one variant must have a variable weight.');
  const names = variants.map((v) => v.name.trim());
  if (names.some((n) => n === '')) problems.push('Every variant needs a name.');
  const twice = names.find((n, i) => n !== '' && names.indexOf(n) !== i);
  if (twice) problems.push(`The name "${twice}" is used twice.`);
  return problems;
}

/** The list as the API takes it: computed weights, one stickiness, payloads only when set. */
export function variantsPayload(variants: Variant[], stickiness: string): Variant[] {
  const weights = splitWeights(variants);
  return variants.map((v, i) => ({
    name: v.name.trim(),
    weight: weights[i] ?? 0,
    weightType: isFixed(v) ? 'fix' : 'variable',
    stickiness,
    ...(v.payload && { payload: v.payload }),
  }));
}
