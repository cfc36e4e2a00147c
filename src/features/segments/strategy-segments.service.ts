import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { Applier } from '../changes/index.js';
import type { StrategySegmentsInput } from './strategy-segments.schemas.js';
import { placeOfStrategy } from './strategy-segments.store.js';

/**
 * Sets the segments of a strategy to exactly the listed ones. The strategy must be in the project
 * and environment the body names (404 otherwise); the change is a strategy update (`updateStrategy`), so
 * unknown segments are a 400 and `feature-strategy-update` is recorded (Unleash records nothing).
 */
export async function setSegmentsOfStrategy(
  deps: Deps,
  changes: Applier,
  input: StrategySegmentsInput,
  by: Principal,
) {
  const place = await placeOfStrategy(deps.database.db, input.strategyId);
  if (!place || place.project !== input.projectId || place.environment !== input.environmentId) {
    throw notFound(
      `Could not find strategy with id ${input.strategyId} in project "${input.projectId}" and environment "${input.environmentId}".`,
    );
  }
  const change = {
    action: 'updateStrategy' as const,
    project: place.project,
    feature: place.featureName,
    environment: place.environment,
    payload: { id: input.strategyId, segments: input.segmentIds },
  };
  const [after] = await changes.apply(deps, [change], by);
  return { ...input, segmentIds: after.segments };
}
