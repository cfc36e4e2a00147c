import { type CompiledConstraint, compileConstraint } from './constraints.js';
import { compileRule, type StrategyRule } from './strategies.js';
import type {
  DependencyInput,
  FlagInput,
  SegmentInput,
  SnapshotInput,
  StrategyInput,
  VariantDefinition,
} from './types.js';

export interface CompiledSegment {
  id: number;
  name?: string;
  constraints: CompiledConstraint[];
}

/** A segment id with no segment in the snapshot: the strategy fails (docs/evaluation.md §7, §13 G1). */
export interface MissingSegment {
  id: number;
  missing: true;
}

export interface CompiledStrategy {
  input: StrategyInput;
  parameters: Record<string, string>;
  /** Reported as unevaluated and left out of the result (§0.4). */
  disabled: boolean;
  rule: StrategyRule;
  constraints: CompiledConstraint[];
  /** Resolved in `segments[]` order when the snapshot is built. */
  segments: (CompiledSegment | MissingSegment)[];
  variants: VariantDefinition[];
}

export interface CompiledFlag {
  input: FlagInput;
  name: string;
  enabled: boolean;
  strategies: CompiledStrategy[];
  variants: VariantDefinition[];
  dependencies: DependencyInput[];
}

/**
 * Flags and segments of one environment with every operand parsed (numbers, dates, semver, RE2
 * patterns, CIDR ranges, value sets), so evaluation does no parsing (§0.10). Immutable:
 * build a new snapshot when the configuration changes.
 */
export interface CompiledSnapshot {
  flags: ReadonlyMap<string, CompiledFlag>;
  segments: ReadonlyMap<number, CompiledSegment>;
}

export function compileSnapshot(input: SnapshotInput): CompiledSnapshot {
  const segments = new Map<number, CompiledSegment>();
  for (const segment of input.segments ?? []) segments.set(segment.id, compileSegment(segment));
  const flags = new Map<string, CompiledFlag>();
  for (const flag of input.features) flags.set(flag.name, compileFlag(flag, segments));
  return { flags, segments };
}

function compileSegment(segment: SegmentInput): CompiledSegment {
  return {
    id: segment.id,
    ...(segment.name === undefined ? {} : { name: segment.name }),
    constraints: (segment.constraints ?? []).map(compileConstraint),
  };
}

function compileFlag(flag: FlagInput, segments: ReadonlyMap<number, CompiledSegment>): CompiledFlag {
  return {
    input: flag,
    name: flag.name,
    // The SDK tests truthiness (`if (!feature.enabled)`).
    enabled: Boolean(flag.enabled),
    strategies: (Array.isArray(flag.strategies) ? flag.strategies : []).map((strategy) =>
      compileStrategy(strategy, segments),
    ),
    variants: Array.isArray(flag.variants) ? flag.variants : [],
    dependencies: Array.isArray(flag.dependencies) ? flag.dependencies : [],
  };
}

function compileStrategy(
  strategy: StrategyInput,
  segments: ReadonlyMap<number, CompiledSegment>,
): CompiledStrategy {
  const parameters = strategy.parameters ?? {};
  return {
    input: strategy,
    parameters,
    disabled: strategy.disabled === true,
    rule: compileRule(strategy.name, parameters),
    constraints: (strategy.constraints ?? []).map(compileConstraint),
    segments: (strategy.segments ?? []).map((id) => segments.get(id) ?? { id, missing: true }),
    variants: Array.isArray(strategy.variants) ? strategy.variants : [],
  };
}
