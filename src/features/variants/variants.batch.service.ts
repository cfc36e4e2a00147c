import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents } from '../events/index.js';
import { saveVariantsOfFlags, variantsOfFlags } from './variants.batch.store.js';
import type { StoredVariant } from './variants.schemas.js';

/**
 * Makes the variants of each listed flag in one environment the given (already normalised) list,
 * in the caller's transaction (which holds the flags' rows and has given them a row in the
 * environment). Only changes are written, each recorded as `feature-environment-variants-updated`
 * as a PUT of one flag environment records it. Returns the number of events recorded.
 */
export async function setFlagsEnvironmentVariants(
  tx: Db,
  where: { project: string; environment: string },
  wanted: Map<string, StoredVariant[]>,
  by: Principal,
): Promise<number> {
  const current = await variantsOfFlags(tx, [...wanted.keys()], where.environment);
  const changed = [...wanted]
    .filter(([flag, variants]) => !isDeepStrictEqual(current.get(flag) ?? [], variants))
    .map(([flag, variants]) => ({ flag, variants, before: current.get(flag) ?? [] }));
  await saveVariantsOfFlags(tx, where.environment, changed);
  return appendEvents(
    tx,
    changed.map((c) => ({
      type: 'feature-environment-variants-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: c.flag,
      project: where.project,
      environment: where.environment,
      data: { variants: c.variants },
      preData: { variants: c.before },
    })),
  );
}
