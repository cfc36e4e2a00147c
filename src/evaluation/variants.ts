import { resolveContextValue } from './context.js';
import { normalise, VARIANT_SEED } from './rollout.js';
import type { EvaluationContext, VariantDefinition } from './types.js';

const DEFAULT_STICKINESS_FIELDS = ['userId', 'sessionId', 'remoteAddress'] as const;

/** docs/evaluation.md §9.1: the random seed is `String(round(random * 100000))`, as in the SDK. */
function randomSeed(random: () => number): string {
  return String(Math.round(random() * 100_000));
}

/**
 * The stickiness value a variant is bucketed on (§9.1): for `default` the first non-empty string
 * of userId, sessionId, remoteAddress (no properties); for any other name (even `random`, which is
 * just a field name here) the resolved context value; random when nothing is found.
 */
function seedFor(context: EvaluationContext, stickiness: string, random: () => number): string {
  if (stickiness !== 'default') return resolveContextValue(context, stickiness) || randomSeed(random);
  for (const field of DEFAULT_STICKINESS_FIELDS) {
    const value = context[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return randomSeed(random);
}

function overrideMatches(definition: VariantDefinition, context: EvaluationContext): boolean {
  return (definition.overrides ?? []).some((override) => {
    const value = resolveContextValue(context, override.contextName);
    return value !== undefined && override.values.includes(value);
  });
}

/**
 * The SDK's `selectVariantDefinition` (§9.2): nothing when the weights total ≤ 0 (even if an
 * override matches); otherwise the first override match in array order, regardless of weight;
 * otherwise bucket `normalise(seed, groupId, total)` over the running sums, skipping weight 0.
 * `groupId` is the flag name for flag variants and `parameters.groupId` as-is for strategy variants.
 */
export function selectVariantDefinition(
  groupId: string | undefined,
  stickiness: string | undefined,
  variants: VariantDefinition[],
  context: EvaluationContext,
  random: () => number,
): VariantDefinition | undefined {
  const total = variants.reduce((sum, variant) => sum + variant.weight, 0);
  if (total <= 0) return undefined;
  const overridden = variants.find((variant) => overrideMatches(variant, context));
  if (overridden) return overridden;
  const target = normalise(seedFor(context, stickiness ?? 'default', random), groupId, total, VARIANT_SEED);
  let running = 0;
  for (const variant of variants) {
    if (variant.weight === 0) continue;
    running += variant.weight;
    if (running >= target) return variant;
  }
  return undefined;
}
