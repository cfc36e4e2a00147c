/**
 * The `resourceLimits` of ui-config: Unleash's web UI reads them to warn or refuse before a
 * request. Where this service refuses more than a bound, the bound is its own (the TypeBox
 * schemas' `maxItems`; a test sends one item past each), so the UI never blocks what the
 * service accepts nor promises what it refuses. Everything else has no bound here: `NO_LIMIT`,
 * large enough that no count reaches it, finite because the UI prints it.
 */
export const NO_LIMIT = 1_000_000;

/** Bounds the service enforces, per request body (strategies and segments alike). */
export const ENFORCED_LIMITS = {
  /** Values of one constraint (ConstraintBody `values`). */
  constraintValues: 10_000,
  /** Constraints of one strategy or segment (ConstraintsBody). */
  constraints: 1_000,
  /** Segments attached to one strategy (a strategy body's `segments`). */
  strategySegments: 1_000,
} as const;

export const RESOURCE_LIMITS = {
  ...ENFORCED_LIMITS,
  // A segment holds at most `constraints` constraints of `constraintValues` values each; there
  // is no bound on the total besides that product.
  segmentValues: ENFORCED_LIMITS.constraints * ENFORCED_LIMITS.constraintValues,
  featureEnvironmentStrategies: NO_LIMIT,
  environments: NO_LIMIT,
  projects: NO_LIMIT,
  apiTokens: NO_LIMIT,
  segments: NO_LIMIT,
  // Flags are bounded per project (its `featureLimit`, 403 past it), not in all.
  featureFlags: NO_LIMIT,
  releaseTemplates: NO_LIMIT,
  // Action sets and signals do not exist here.
  actionSetActions: NO_LIMIT,
  actionSetsPerProject: NO_LIMIT,
  actionSetFilters: NO_LIMIT,
  actionSetFilterValues: NO_LIMIT,
  signalEndpoints: NO_LIMIT,
  signalTokensPerEndpoint: NO_LIMIT,
} as const;
