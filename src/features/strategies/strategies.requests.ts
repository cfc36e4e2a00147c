import { Ajv } from 'ajv';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, invalidField } from '../../platform/http/errors.js';
import { validationDetails } from '../../platform/http/validation.js';
import { applyJsonPatch, PatchError, type PatchOperation } from '../../platform/json-patch.js';
import { type Applier, changeTarget, recomputedOnConflict } from '../changes/index.js';
import { type PatchInput, UpdateStrategyBody, type UpdateStrategyInput } from '../shapes/index.js';
import type { Strategy } from './strategies.schemas.js';
import { type FlagEnvironmentRef, getStrategy } from './strategies.service.js';

/**
 * How the strategy routes' requests become changes when they depend on the strategy as it is
 * (see changes.requests.ts for If-Match and JSON Patch).
 */

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const checkPatched = ajv.compile(UpdateStrategyBody);

/** The strategy a JSON Patch makes of `before`: it must be a valid strategy (400 otherwise). */
function patched(before: Strategy, ops: PatchInput, maxSize: number): UpdateStrategyInput {
  let result: unknown;
  try {
    result = applyJsonPatch(before, ops as PatchOperation[], { maxSize });
  } catch (error) {
    if (error instanceof PatchError) throw invalidField(`/body/${error.index}`, error.message);
    throw error;
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result) || !checkPatched(result)) {
    const details = validationDetails(checkPatched.errors ?? [], 'body').map((d) => ({
      ...d,
      message: `The patched strategy is invalid: ${d.message}`,
    }));
    throw invalid('The patched strategy is invalid.', details.length ? details : undefined);
  }
  const { name, title, disabled, sortOrder, parameters, constraints, variants, segments } =
    result as UpdateStrategyInput;
  return { name, title, disabled, sortOrder, parameters, constraints, variants, segments };
}

/**
 * Applies a JSON Patch to the strategy as an `updateStrategy` made against the strategy it was
 * computed from (recomputedOnConflict: a concurrent write is never overwritten).
 */
export const patchStrategy = (
  deps: Deps,
  changes: Applier,
  ref: FlagEnvironmentRef,
  id: string,
  ops: PatchInput,
  by: Principal,
  ifMatch: string | undefined,
): Promise<Strategy> =>
  recomputedOnConflict(
    ifMatch,
    () => getStrategy(deps, ref, id),
    async (before) => {
      const payload = { ...patched(before, ops, deps.config.BODY_LIMIT), id, snapshot: before };
      const [after] = await changes.apply(
        deps,
        [{ action: 'updateStrategy', ...changeTarget(ref), payload }],
        by,
      );
      return after;
    },
  );
