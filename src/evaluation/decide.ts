import type { CompiledFlag, CompiledSnapshot, CompiledStrategy } from './compile.js';
import { type ContextView, prepareContext } from './context.js';
import type { EvaluationContext, EvaluationEnv, VariantDefinition, VariantResult } from './types.js';
import { selectVariantDefinition } from './variants.js';

/** What an SDK computes for a flag: the answer without the playground's report. */
export interface Decision {
  isEnabled: boolean;
  variant: VariantResult;
}

const variantResult = (
  name: string,
  enabled: boolean,
  featureEnabled: boolean,
  payload?: VariantDefinition['payload'],
): VariantResult => ({
  name,
  enabled,
  ...(payload === undefined ? {} : { payload }),
  feature_enabled: featureEnabled,
  featureEnabled,
});

const OFF = variantResult('disabled', false, false);

/**
 * The SDK algorithm (docs/evaluation.md §4, §9.5) on the compiled snapshot, short-circuiting as the SDK
 * does: the first false constraint ends a strategy, the first enabled strategy ends the flag. Same
 * answers as `evaluateFlag` (a test holds them equal), several times cheaper, for callers that need
 * no report (SDK-facing evaluation, benchmarks).
 */
export function decideFlag(
  snapshot: CompiledSnapshot,
  name: string,
  context: EvaluationContext,
  env: EvaluationEnv,
): Decision | undefined {
  const flag = snapshot.flags.get(name);
  return flag && decide(snapshot, flag, prepareContext(context, env));
}

function gatesPass(strategy: CompiledStrategy, view: ContextView): boolean {
  for (const constraint of strategy.constraints) if (!constraint.evaluate(view)) return false;
  for (const segment of strategy.segments) {
    if ('missing' in segment) return false;
    for (const constraint of segment.constraints) if (!constraint.evaluate(view)) return false;
  }
  return true;
}

function decide(snapshot: CompiledSnapshot, flag: CompiledFlag, view: ContextView): Decision {
  if (!flag.enabled || !dependenciesSatisfied(snapshot, flag, view))
    return { isEnabled: false, variant: OFF };
  let active = false;
  for (const strategy of flag.strategies) {
    if (strategy.disabled) continue;
    active = true;
    // Custom strategy types and applicationHostname cannot be decided here (§0.3): false.
    if (strategy.rule === 'unknown' || !gatesPass(strategy, view) || !strategy.rule(view)) continue;
    const { variants, parameters } = strategy;
    if (variants.length > 0) {
      const stickiness = variants[0]?.stickiness || parameters.stickiness;
      const chosen = selectVariantDefinition(
        parameters.groupId,
        stickiness,
        variants,
        view.context,
        view.random,
      );
      if (chosen) return { isEnabled: true, variant: variantResult(chosen.name, true, true, chosen.payload) };
    }
    return { isEnabled: true, variant: flagVariant(flag, view) };
  }
  // No strategy at all (or only disabled ones): on, as the environment is (§0.4).
  return active ? { isEnabled: false, variant: OFF } : { isEnabled: true, variant: flagVariant(flag, view) };
}

function flagVariant(flag: CompiledFlag, view: ContextView): VariantResult {
  const stickiness = flag.variants[0]?.stickiness ?? undefined;
  const chosen = selectVariantDefinition(flag.name, stickiness, flag.variants, view.context, view.random);
  return chosen
    ? variantResult(chosen.name, true, true, chosen.payload)
    : variantResult('disabled', false, true);
}

/** §10, as `evaluateFlag` applies it: one level only; variants need the parent's variant name. */
function dependenciesSatisfied(snapshot: CompiledSnapshot, flag: CompiledFlag, view: ContextView): boolean {
  for (const dependency of flag.dependencies) {
    const parent = snapshot.flags.get(dependency.feature);
    if (!parent || parent.dependencies.length > 0) return false;
    const decision = decide(snapshot, parent, view);
    if (dependency.enabled === false) {
      if (decision.isEnabled) return false;
    } else if (dependency.variants?.length) {
      if (!decision.variant.feature_enabled || !dependency.variants.includes(decision.variant.name))
        return false;
    } else if (!decision.isEnabled) return false;
  }
  return true;
}
