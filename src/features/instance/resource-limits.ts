import type { TSchema } from 'typebox';
import { ConstraintBody, ConstraintsBody, CreateStrategyBody } from '../strategies/index.js';

/**
 * The `resourceLimits` of ui-config: Unleash's web UI reads them to warn or refuse before a
 * request. Where this service refuses more than a bound, the bound is its own (the TypeBox
 * schemas' `maxItems`; a test sends one item past each), so the UI never blocks what the
 * service accepts nor promises what it refuses. Everything else has no bound here: `NO_LIMIT`,
 * large enough that no count reaches it, finite because the UI prints it.
 */
export const NO_LIMIT = 1_000_000;

/** The schema's own bound on an array, read from it so that the two cannot disagree. */
function maxItemsOf(schema: TSchema | undefined): number {
  const max = (schema as { maxItems?: unknown } | undefined)?.maxItems;
  if (typeof max !== 'number') throw new Error('resource-limits: the schema has no maxItems');
  return max;
}

/** Bounds the service enforces, per request body (strategies and segments alike). */
export const ENFORCED_LIMITS = {
  /** Values of one constraint (ConstraintBody `values`). */
  constraintValues: maxItemsOf(ConstraintBody.properties.values),
  /** Constraints of one strategy or segment (ConstraintsBody). */
  constraints: maxItemsOf(ConstraintsBody),
  /** Segments attached to one strategy (a strategy body's `segments`). */
  strategySegments: maxItemsOf(CreateStrategyBody.properties.segments),
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
