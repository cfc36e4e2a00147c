import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { updateStrategyById } from '../strategies/index.js';
import type { StrategySegmentsInput } from './strategy-segments.schemas.js';
import { placeOfStrategy } from './strategy-segments.store.js';

/**
 * Sets the segments of a strategy to exactly the listed ones. The strategy must be in the project
 * and environment the body names (404 otherwise); the change goes through the strategy update, so
 * unknown segments are a 400 and `feature-strategy-update` is recorded (Unleash records nothing).
 */
export async function setSegmentsOfStrategy(deps: Deps, input: StrategySegmentsInput, by: Principal) {
  const place = await placeOfStrategy(deps.database.db, input.strategyId);
  if (!place || place.project !== input.projectId || place.environment !== input.environmentId) {
    throw notFound(
      `Could not find strategy with id ${input.strategyId} in project "${input.projectId}" and environment "${input.environmentId}".`,
    );
  }
  const ref = { projectId: place.project, featureName: place.featureName, environment: place.environment };
  const after = await updateStrategyById(deps, ref, input.strategyId, { segments: input.segmentIds }, by);
  return { ...input, segmentIds: after.segments };
}
