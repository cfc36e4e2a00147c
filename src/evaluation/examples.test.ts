import { readFileSync } from 'node:fs';
import murmurhash3js from 'murmurhash3js';
import { describe, expect, it } from 'vitest';
import { compileSnapshot } from './compile.js';
import { evaluateFlag } from './evaluate.js';
import { normalise } from './rollout.js';
import type {
  EvaluationContext,
  FlagEvaluation,
  SnapshotInput,
  StrategyEnabled,
  VariantResult,
} from './types.js';

// Golden vectors: the worked examples of docs/evaluation.md §15, computed with the Node SDK 6.12.1.
interface Golden {
  normalise: {
    example: string;
    groupId: string;
    id: string;
    seed: number;
    n: number;
    hash?: number;
    expected: number;
  }[];
  evaluations: {
    example: string;
    description: string;
    state: SnapshotInput;
    flag: string;
    context: EvaluationContext;
    expected: {
      isEnabled: boolean;
      isEnabledInCurrentEnvironment?: boolean;
      hasUnsatisfiedDependency?: boolean;
      result?: StrategyEnabled;
      variant?: Pick<VariantResult, 'name' | 'enabled' | 'feature_enabled' | 'payload'>;
      strategies?: [StrategyEnabled, string][];
      segments?: [number, boolean][];
    };
  }[];
}

const golden: Golden = JSON.parse(
  readFileSync(new URL('../../test/golden/evaluation-examples.json', import.meta.url), 'utf8'),
);
const env = { now: new Date('2026-01-01T00:00:00Z'), random: () => 0.5 };

/** Only the fields a vector states are compared, so one vector pins one fact. */
function observed(evaluation: FlagEvaluation, expected: Golden['evaluations'][number]['expected']) {
  const { name, enabled, feature_enabled, payload } = evaluation.variant;
  const all = {
    isEnabled: evaluation.isEnabled,
    isEnabledInCurrentEnvironment: evaluation.isEnabledInCurrentEnvironment,
    hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
    result: evaluation.strategies.result,
    variant: { name, enabled, feature_enabled, ...(payload === undefined ? {} : { payload }) },
    strategies: evaluation.strategies.data.map((s) => [s.result.enabled, s.result.evaluationStatus]),
    segments: evaluation.strategies.data[0]?.segments.map((s) => [s.id, s.result]),
  };
  return Object.fromEntries(Object.keys(expected).map((key) => [key, all[key as keyof typeof all]]));
}

describe('docs/evaluation.md §15 hashing examples', () => {
  it.each(golden.normalise)('example $example: $groupId:$id seed $seed → $expected of $n', (row) => {
    if (row.hash !== undefined)
      expect(murmurhash3js.x86.hash32(`${row.groupId}:${row.id}`, row.seed)).toBe(row.hash);
    expect(normalise(row.id, row.groupId, row.n, row.seed)).toBe(row.expected);
  });
});

describe('docs/evaluation.md §15 evaluation examples', () => {
  it.each(golden.evaluations)('example $example: $description ($flag, $context)', (row) => {
    const evaluation = evaluateFlag(compileSnapshot(row.state), row.flag, row.context, env);
    expect(evaluation).toBeDefined();
    expect(observed(evaluation!, row.expected)).toEqual(row.expected);
  });
});
