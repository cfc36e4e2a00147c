import type { CompiledSegment, CompiledStrategy, MissingSegment } from './compile.js';
import type { CompiledConstraint } from './constraints.js';
import type { ContextView } from './context.js';
import type { ConstraintResult, SegmentResult, StrategyResult } from './types.js';
import { selectVariantDefinition } from './variants.js';

/**
 * A constraint with its result. Built for every strategy of every evaluation the playground makes,
 * so an explicit literal (one object shape) rather than a spread of the stored constraint; fields
 * the constraint does not have stay undefined and are left out of JSON.
 */
function constraintResult(c: CompiledConstraint, view: ContextView): ConstraintResult {
  const input = c.input;
  return {
    contextName: input.contextName,
    operator: input.operator,
    values: input.values,
    value: input.value,
    inverted: input.inverted,
    caseInsensitive: input.caseInsensitive,
    result: c.evaluate(view),
  };
}

function evaluateSegment(segment: CompiledSegment | MissingSegment, view: ContextView): SegmentResult {
  if ('missing' in segment) return { id: segment.id, result: false, missing: true, constraints: [] };
  const constraints = segment.constraints.map((c) => constraintResult(c, view));
  return {
    id: segment.id,
    name: segment.name,
    result: constraints.every((c) => c.result),
    constraints,
  };
}

/**
 * One strategy with every constraint and segment reported (no short-circuit, docs/evaluation.md
 * §12.2). The strategy is enabled when its constraints, its segments and its own rule all pass
 * (§4 step 5). Strategy variants are chosen only for an enabled strategy (SDK, §13 V2), with
 * stickiness `variants[0].stickiness`, else `parameters.stickiness` (SDK, §8, §13 V1).
 */
export function evaluateStrategy(strategy: CompiledStrategy, view: ContextView): StrategyResult {
  const constraints = strategy.constraints.map((c) => constraintResult(c, view));
  const segments = strategy.segments.map((segment) => evaluateSegment(segment, view));
  const gates = constraints.every((c) => c.result) && segments.every((s) => s.result);
  const { input, parameters, rule, variants } = strategy;
  // One literal per strategy (the playground reports up to 100,000 evaluations): an absent id or
  // title is an undefined field, which JSON leaves out.
  const report = (result: StrategyResult['result']): StrategyResult => ({
    name: input.name,
    id: input.id,
    title: typeof input.title === 'string' ? input.title : undefined,
    disabled: strategy.disabled,
    parameters,
    constraints,
    segments,
    result,
  });
  if (strategy.disabled) return report({ enabled: false, evaluationStatus: 'unevaluated' });
  if (rule === 'unknown')
    return report({ enabled: gates ? 'unknown' : false, evaluationStatus: 'incomplete' });
  // The rule runs only after its gates pass, as in the SDK, so random draws match its order.
  const enabled = gates && rule(view);
  if (!enabled || variants.length === 0) return report({ enabled, evaluationStatus: 'complete' });
  const stickiness = variants[0]?.stickiness || parameters.stickiness;
  const chosen = selectVariantDefinition(parameters.groupId, stickiness, variants, view.context, view.random);
  if (!chosen) return report({ enabled, evaluationStatus: 'complete' });
  const variant = {
    name: chosen.name,
    enabled: true as const,
    payload: chosen.payload,
  };
  return report({ enabled, evaluationStatus: 'complete', variant, variants });
}
