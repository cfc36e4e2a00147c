import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import {
  type Applier,
  againstIfMatch,
  changeTarget,
  type FlagEnvironmentPath,
  recomputedOnConflict,
} from '../changes/index.js';
import type { PatchBodyType, StoredVariant, VariantInputType } from './variants.schemas.js';
import {
  getEnvironmentVariants,
  getFlagVariants,
  loadFlag,
  patchVariants,
  prepareVariants,
  response,
  type Target,
} from './variants.service.js';

/**
 * How the variant routes' requests become changes (`patchVariant`, `updateFlagVariants`): a PUT
 * with If-Match is made against the variants its tag names, a JSON Patch against the variants as
 * read (see changes.requests.ts).
 */

/** Variants as stored came out of prepareVariants, so they are a valid body (weightType typed wider). */
const asInput = (variants: StoredVariant[]) => variants as VariantInputType[];

export const replaceEnvironmentVariants = (
  deps: Deps,
  changes: Applier,
  t: FlagEnvironmentPath,
  variants: VariantInputType[],
  by: Principal,
  ifMatch: string | undefined,
) =>
  againstIfMatch(
    ifMatch,
    () => getEnvironmentVariants(deps, t, t.environment),
    async (snapshot) => {
      const payload = { variants, snapshot: snapshot?.variants };
      const [after] = await changes.apply(
        deps,
        [{ action: 'patchVariant', ...changeTarget(t), payload }],
        by,
      );
      return after;
    },
  );

export const patchEnvironmentVariants = (
  deps: Deps,
  changes: Applier,
  t: FlagEnvironmentPath,
  patch: PatchBodyType,
  by: Principal,
  ifMatch: string | undefined,
) =>
  recomputedOnConflict(
    ifMatch,
    () => getEnvironmentVariants(deps, t, t.environment),
    async (current) => {
      const variants = asInput(patchVariants(current.variants, patch, deps.config.BODY_LIMIT));
      const payload = { variants, snapshot: current.variants };
      const [after] = await changes.apply(
        deps,
        [{ action: 'patchVariant', ...changeTarget(t), payload }],
        by,
      );
      return after;
    },
  );

/** `variants-batch`: the same variants into each listed environment of the flag, in one transaction. */
export async function pushVariants(
  deps: Deps,
  changes: Applier,
  t: Target,
  input: { variants?: VariantInputType[]; environments?: string[] },
  by: Principal,
) {
  // Checked here for the body's paths; each change checks them again (the same rules, idempotent).
  const prepared = prepareVariants(input.variants ?? [], '/body/variants');
  const variants = asInput(prepared);
  const environments = [...new Set(input.environments ?? [])];
  // No environment, no change: the flag must still be one that could be written (404, 400).
  if (environments.length === 0) await loadFlag(deps.database.db, t.projectId, t.featureName);
  const list = environments.map((environment) => ({
    action: 'patchVariant' as const,
    ...changeTarget({ ...t, environment }),
    payload: { variants },
  }));
  await changes.apply(deps, list, by);
  return response(prepared);
}

/**
 * The deprecated flag-level PUT (replace) and PATCH (a patch of the first environment's variants,
 * made against them).
 */
export async function changeFlagVariants(
  deps: Deps,
  changes: Applier,
  t: Target,
  change: { replace: VariantInputType[] } | { patch: PatchBodyType },
  by: Principal,
) {
  const write = async (variants: VariantInputType[], snapshot?: StoredVariant[]) => {
    const action = 'updateFlagVariants' as const;
    const payload = { variants, snapshot };
    const [after] = await changes.apply(
      deps,
      [{ action, project: t.projectId, feature: t.featureName, payload }],
      by,
    );
    return after;
  };
  if ('replace' in change) return write(change.replace);
  const { patch } = change;
  return recomputedOnConflict(
    undefined,
    () => getFlagVariants(deps, t),
    (current) =>
      write(asInput(patchVariants(current.variants, patch, deps.config.BODY_LIMIT)), current.variants),
  );
}
