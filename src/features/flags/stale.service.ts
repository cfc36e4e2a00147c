import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvent } from '../events/index.js';
import { projectNotFound } from './listing.service.js';
import { activeProjectExists } from './listing.store.js';
import type { StaleInput } from './stale.schemas.js';
import { setStale } from './stale.store.js';

/** Marks the listed flags of the project stale or not; one stale-on/off event per flag that changed. */
export async function markStale(deps: Deps, projectId: string, input: StaleInput, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    if (!(await activeProjectExists(tx, projectId))) throw projectNotFound(projectId);
    const changed = await setStale(tx, projectId, [...new Set(input.features)], input.stale);
    for (const name of changed) {
      await appendEvent(tx, {
        type: input.stale ? 'feature-stale-on' : 'feature-stale-off',
        createdBy: by.name,
        createdByUserId: by.userId,
        featureName: name,
        project: projectId,
        data: { stale: input.stale },
        preData: { stale: !input.stale },
      });
    }
  });
}
