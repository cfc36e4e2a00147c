/**
 * Types of the pure evaluation engine (ADR 0002, docs/evaluation.md; a bare §N below is a
 * section of that file).
 *
 * Input: the Unleash client-API shape (§1), i.e. what `/api/client/features` returns
 * and what `@unleash/client-specification` files carry in `state`, plus the playground-only
 * strategy fields `id`, `title`, `disabled`. Output: per flag, the SDK-exact `isEnabled`/`variant`
 * (§0.1) plus the per-strategy, per-constraint and per-segment report of the playground
 * (§0.2, §12).
 */

/** Variant payload; `value` is always a string, even for `json` and `number` (§9.3). */
export interface VariantPayload {
  type: string;
  value: string;
}

/** Forces a variant when `resolveContextValue(contextName)` is one of `values` (§9.2 step 2). */
export interface VariantOverride {
  contextName: string;
  values: string[];
}

export interface VariantDefinition {
  name: string;
  weight: number;
  weightType?: string;
  /** Absent or `default`: userId, sessionId, remoteAddress, else random (§9.1). */
  stickiness?: string;
  payload?: VariantPayload;
  overrides?: VariantOverride[];
}

export interface ConstraintInput {
  contextName: string;
  operator: string;
  /** Read by the multi-value operators (IN, NOT_IN, STR_*, IN_CIDR). */
  values?: string[];
  /** Read by the single-value operators (NUM_*, DATE_*, SEMVER_*, REGEX). */
  value?: string | null;
  inverted?: boolean;
  caseInsensitive?: boolean;
}

export interface StrategyInput {
  name: string;
  /** The server stringifies every parameter value (§1). */
  parameters?: Record<string, string>;
  constraints?: ConstraintInput[];
  /** Segment ids; the client API sorts them ascending (§7). */
  segments?: number[];
  variants?: VariantDefinition[];
  /** Playground-only fields; the client API never sends them and omits disabled strategies. */
  id?: string;
  title?: string | null;
  disabled?: boolean | null;
}

export interface DependencyInput {
  /** Parent flag name. */
  feature: string;
  /** Absent means true (§10). */
  enabled?: boolean;
  /** Only meaningful when `enabled !== false`. */
  variants?: string[];
}

export interface FlagInput {
  name: string;
  /** Whether the flag is on in the environment this snapshot was built for. */
  enabled: boolean;
  /** Evaluated in array order; the client API order (milestones, sort_order, id) is the contract. */
  strategies?: StrategyInput[];
  /** Flag-level ("environment", legacy) variants, in stored order (§9.4). */
  variants?: VariantDefinition[] | null;
  dependencies?: DependencyInput[];
  impressionData?: boolean;
  project?: string;
  type?: string;
  stale?: boolean;
  description?: string | null;
}

export interface SegmentInput {
  id: number;
  name?: string;
  constraints?: ConstraintInput[];
}

/** A client-API payload: `{features, segments}` (version 1 or 2; `version` is not read). */
export interface SnapshotInput {
  features: FlagInput[];
  segments?: SegmentInput[];
}

/**
 * The evaluation context (§1). The caller merges any static context (`appName`, ...) beforehand.
 * Any other top-level key is allowed and shadows a property of the same name (§2).
 */
export interface EvaluationContext {
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  /** Absent means `default` in constraints, never the environment being evaluated (§0.8). */
  environment?: string;
  appName?: string;
  /** Date or RFC 3339 string; absent means the `now` passed to the engine. */
  currentTime?: string | Date;
  properties?: Record<string, string | null | undefined>;
  [key: string]: unknown;
}

/** What the engine may not obtain by itself (ADR 0002): the clock and the random source. */
export interface EvaluationEnv {
  now: Date;
  /** Uniform in [0, 1), like `Math.random`. */
  random: () => number;
}

export type StrategyEnabled = boolean | 'unknown';

/**
 * `complete`: built-in strategy, evaluated. `incomplete`: custom type or `applicationHostname`,
 * which the server cannot decide (§0.3). `unevaluated`: disabled strategy (§0.4).
 */
export type EvaluationStatus = 'complete' | 'incomplete' | 'unevaluated';

export interface StrategyVariant {
  name: string;
  enabled: true;
  payload?: VariantPayload;
}

export interface ConstraintResult extends ConstraintInput {
  /** Operator result after inversion; an unknown operator is false even when inverted (§6.1). */
  result: boolean;
}

export interface SegmentResult {
  id: number;
  name?: string;
  /** All of the segment's constraints are true; a missing segment is false (§7, §13 G1). */
  result: boolean;
  /** Set when the strategy references a segment id absent from the snapshot. */
  missing?: true;
  constraints: ConstraintResult[];
}

export interface StrategyResult {
  name: string;
  id?: string;
  title?: string;
  disabled: boolean;
  parameters: Record<string, string>;
  result: {
    enabled: StrategyEnabled;
    evaluationStatus: EvaluationStatus;
    /** Only when the strategy is enabled and its variants select one (SDK behaviour, §13 V2). */
    variant?: StrategyVariant;
    variants?: VariantDefinition[];
  };
  constraints: ConstraintResult[];
  segments: SegmentResult[];
}

/** The variant `getVariant` returns; `featureEnabled` is the SDK's deprecated twin of `feature_enabled`. */
export interface VariantResult {
  name: string;
  enabled: boolean;
  payload?: VariantPayload;
  feature_enabled: boolean;
  featureEnabled: boolean;
}

export interface FlagEvaluation {
  name: string;
  /** SDK-exact (§0.1): environment on, dependencies satisfied, strategies.result true. */
  isEnabled: boolean;
  isEnabledInCurrentEnvironment: boolean;
  hasUnsatisfiedDependency: boolean;
  /** SDK-exact `getVariant` result; never null (§9.5, §12.4). */
  variant: VariantResult;
  /** The winning strategy's variants if it chose one, else the flag-level variants (§12.4). */
  variants: VariantDefinition[];
  strategies: {
    /** Aggregation of §0.3 / §12.3; ignores environment state and dependencies. */
    result: StrategyEnabled;
    data: StrategyResult[];
  };
}
