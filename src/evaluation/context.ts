import type { EvaluationContext, EvaluationEnv } from './types.js';

/** A context prepared once per evaluation: `currentTime` parsed, the environment defaulted. */
export interface ContextView {
  context: EvaluationContext;
  /**
   * `currentTime` when given (an unparsable one is an Invalid Date), else `env.now`
   * (docs/evaluation.md §6.2).
   */
  now: Date;
  random: () => number;
}

export function prepareContext(context: EvaluationContext, env: EvaluationEnv): ContextView {
  // §0.8: constraints on `environment` see the context's own field, else `default`,
  // exactly as the SDK's static context supplies it.
  const prepared: EvaluationContext = { ...context, environment: context.environment ?? 'default' };
  const time = context.currentTime;
  const now = time ? new Date(time) : env.now;
  return { context: prepared, now, random: env.random };
}

/**
 * The SDK's `resolveContextValue` (§2): a top-level field unless null/undefined, else the property
 * of that name; stringified. `""` and `0` are values ("" and "0"), unlike the playground (§13 C2).
 */
export function resolveContextValue(context: EvaluationContext, field: string): string | undefined {
  const top = context[field];
  if (top !== null && top !== undefined) return String(top);
  const property = context.properties?.[field];
  if (property !== null && property !== undefined) return String(property);
  return undefined;
}
