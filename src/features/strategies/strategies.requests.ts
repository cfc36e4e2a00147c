import { Ajv } from 'ajv';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, invalidField } from '../../platform/http/errors.js';
import { checkIfMatch, isConditional, preconditionFailed } from '../../platform/http/etag.js';
import { validationDetails } from '../../platform/http/validation.js';
import { applyJsonPatch, PatchError, type PatchOperation } from '../../platform/json-patch.js';
import { type Applier, ChangeConflict } from '../changes/index.js';
import { type PatchInput, UpdateStrategyBody, type UpdateStrategyInput } from '../shapes/index.js';
import type { Strategy } from './strategies.schemas.js';
import { type FlagEnvironmentRef, getStrategy } from './strategies.service.js';

/**
 * How the strategy routes' requests become changes when they depend on the strategy as it is: a
 * write with If-Match is made against the strategy the client's tag names (its snapshot), a JSON
 * Patch against the strategy as read.
 */

export const target = (ref: FlagEnvironmentRef) => ({
  project: ref.projectId,
  feature: ref.featureName,
  environment: ref.environment,
});

/**
 * Runs `write` with the strategy the If-Match header names as its snapshot (412 when the header
 * names another, or when the strategy changes before the write locks it); without a condition,
 * with no snapshot.
 */
export async function againstIfMatch<T>(
  deps: Deps,
  ref: FlagEnvironmentRef,
  id: string,
  ifMatch: string | undefined,
  write: (snapshot: Strategy | undefined) => Promise<T>,
): Promise<T> {
  if (!isConditional(ifMatch)) return write(undefined);
  const before = await getStrategy(deps, ref, id);
  await checkIfMatch(ifMatch, () => before);
  try {
    return await write(before);
  } catch (error) {
    throw error instanceof ChangeConflict ? preconditionFailed() : error;
  }
}

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

/** Tries again when the strategy changed between the read and the write (a patch is applied to the latest). */
const PATCH_ATTEMPTS = 10;

/**
 * Applies a JSON Patch to the strategy as an `updateStrategy` made against the strategy it was
 * computed from, so a concurrent write is never overwritten: the patch is recomputed on the newer
 * strategy (or, with If-Match, refused with 412).
 */
export async function patchStrategy(
  deps: Deps,
  changes: Applier,
  ref: FlagEnvironmentRef,
  id: string,
  ops: PatchInput,
  by: Principal,
  ifMatch: string | undefined,
): Promise<Strategy> {
  for (let attempt = 1; ; attempt++) {
    const before = await getStrategy(deps, ref, id);
    await checkIfMatch(ifMatch, () => before);
    const payload = { ...patched(before, ops, deps.config.BODY_LIMIT), id, snapshot: before };
    try {
      const [after] = await changes.apply(deps, [{ action: 'updateStrategy', ...target(ref), payload }], by);
      return after;
    } catch (error) {
      if (!(error instanceof ChangeConflict)) throw error;
      if (isConditional(ifMatch)) throw preconditionFailed();
      if (attempt >= PATCH_ATTEMPTS) throw error;
    }
  }
}
