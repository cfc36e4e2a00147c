import type { CompiledFlag, CompiledSnapshot } from './compile.js';
import { type ContextView, prepareContext } from './context.js';
import { evaluateStrategy } from './strategy-result.js';
import type {
  DependencyInput,
  EvaluationContext,
  EvaluationEnv,
  FlagEvaluation,
  StrategyEnabled,
  StrategyResult,
  VariantDefinition,
  VariantResult,
} from './types.js';
import { selectVariantDefinition } from './variants.js';

/**
 * Evaluates one flag. `undefined` when the snapshot has no such flag: the caller applies its
 * fallback (the SDK returns `false` and the disabled variant,
 * docs/evaluation.md §4 step 1, §9.5 step 1).
 */
export function evaluateFlag(
  snapshot: CompiledSnapshot,
  name: string,
  context: EvaluationContext,
  env: EvaluationEnv,
): FlagEvaluation | undefined {
  const flag = snapshot.flags.get(name);
  return flag && evaluateCompiled(snapshot, flag, prepareContext(context, env));
}

/** Evaluates every flag of the snapshot for one context, in snapshot order. */
export function evaluateAll(
  snapshot: CompiledSnapshot,
  context: EvaluationContext,
  env: EvaluationEnv,
): FlagEvaluation[] {
  const view = prepareContext(context, env);
  return [...snapshot.flags.values()].map((flag) => evaluateCompiled(snapshot, flag, view));
}

/**
 * Evaluates one compiled flag of the snapshot for a context prepared once (`prepareContext`), for
 * callers that evaluate many flags per context. `strategies.data[i]` reports `flag.strategies[i]`.
 */
export function evaluateCompiled(
  snapshot: CompiledSnapshot,
  flag: CompiledFlag,
  view: ContextView,
): FlagEvaluation {
  const data = flag.strategies.map((strategy) => evaluateStrategy(strategy, view));
  const result = aggregate(data, flag.enabled);
  const hasUnsatisfiedDependency = !flag.dependencies.every((d) => dependencySatisfied(snapshot, d, view));
  const isEnabled = flag.enabled && !hasUnsatisfiedDependency && result === true;
  // The SDK stops at the first enabled strategy (§4 step 6): its variant wins, or if it has none,
  // the flag-level variants apply, even when a later enabled strategy has variants.
  const first = isEnabled ? data.find((s) => !s.disabled && s.result.enabled === true) : undefined;
  const winner = first?.result.variant ? first : undefined;
  return {
    name: flag.name,
    isEnabled,
    isEnabledInCurrentEnvironment: flag.enabled,
    hasUnsatisfiedDependency,
    variant: resolveVariant(flag, isEnabled, winner, view),
    variants: winner?.result.variants ?? flag.variants,
    strategies: { result, data },
  };
}

/**
 * §0.3, §12.3: true if any strategy is true, else `unknown` if any is unknown, else false.
 * Disabled strategies take no part; with none left the flag behaves as having no strategies
 * (§0.4), and the result is the environment state as in the server playground (§12.3).
 */
function aggregate(data: StrategyResult[], environmentEnabled: boolean): StrategyEnabled {
  const active = data.filter((strategy) => !strategy.disabled);
  if (active.length === 0) return environmentEnabled;
  if (active.some((strategy) => strategy.result.enabled === true)) return true;
  if (active.some((strategy) => strategy.result.enabled === 'unknown')) return 'unknown';
  return false;
}

function variantResult(
  name: string,
  enabled: boolean,
  featureEnabled: boolean,
  payload?: VariantDefinition['payload'],
): VariantResult {
  // An absent payload is an undefined field (left out of JSON): one shape, no spread.
  return {
    name,
    enabled,
    payload,
    feature_enabled: featureEnabled,
    featureEnabled,
  };
}

/**
 * The SDK's `getVariant` order (§9.5): flag off → disabled variant; the winning strategy's
 * variant; else a flag-level variant bucketed on the flag name with `variants[0].stickiness`;
 * else the disabled variant with `feature_enabled: true`.
 */
function resolveVariant(
  flag: CompiledFlag,
  isEnabled: boolean,
  winner: StrategyResult | undefined,
  view: ContextView,
): VariantResult {
  if (!isEnabled) return variantResult('disabled', false, false);
  const strategyVariant = winner?.result.variant;
  if (strategyVariant) return variantResult(strategyVariant.name, true, true, strategyVariant.payload);
  const stickiness = flag.variants[0]?.stickiness ?? undefined;
  const chosen = selectVariantDefinition(flag.name, stickiness, flag.variants, view.context, view.random);
  if (!chosen) return variantResult('disabled', false, true);
  return variantResult(chosen.name, true, true, chosen.payload);
}

/**
 * §10, SDK rule, evaluated with the child's context: the parent must exist and have no
 * dependencies of its own (one level only, so chains and cycles are unsatisfied). `enabled !==
 * false` with variants: the parent's variant has `feature_enabled` and a listed name; without
 * variants: the parent is enabled. `enabled === false`: the parent is not enabled (env off or no
 * strategy true).
 */
function dependencySatisfied(
  snapshot: CompiledSnapshot,
  dependency: DependencyInput,
  view: ContextView,
): boolean {
  const parent = snapshot.flags.get(dependency.feature);
  if (!parent || parent.dependencies.length > 0) return false;
  const evaluation = evaluateCompiled(snapshot, parent, view);
  if (dependency.enabled === false) return !evaluation.isEnabled;
  if (dependency.variants?.length) {
    return evaluation.variant.feature_enabled && dependency.variants.includes(evaluation.variant.name);
  }
  return evaluation.isEnabled;
}
