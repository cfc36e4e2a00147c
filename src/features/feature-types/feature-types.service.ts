import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { reconcileStaleness } from '../flags/index.js';
import type { FeatureType } from './feature-types.schemas.js';
import { listFeatureTypes, lockFeatureType, setLifetime } from './feature-types.store.js';

export const getFeatureTypes = async (deps: Deps) => ({
  version: 1 as const,
  types: await listFeatureTypes(deps.database.db),
});

/**
 * Sets a flag type's expected lifetime (0 is stored as null: never potentially stale), records
 * `feature-type-updated`, and re-checks the potential staleness of every flag in the same
 * transaction, as Unleash does, so the flags' marks follow the new lifetime at once.
 */
export async function updateLifetime(
  deps: Deps,
  id: string,
  lifetimeDays: number | null,
  by: Principal,
): Promise<FeatureType> {
  const days = lifetimeDays === 0 ? null : lifetimeDays;
  return transaction(deps.database.db, async (tx) => {
    const before = await lockFeatureType(tx, id);
    if (!before) throw notFound(`Could not find a flag type with id "${id}".`);
    const after = { ...before, lifetimeDays: days };
    if (before.lifetimeDays === days) return after;
    await setLifetime(tx, id, days);
    await appendEvent(tx, {
      type: 'feature-type-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: after,
      preData: before,
    });
    await reconcileStaleness(tx, deps.now());
    return after;
  });
}
