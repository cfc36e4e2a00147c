import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvent } from '../events/index.js';
import { deleteFavorite, insertFavorite } from './flags.more.store.js';
import { notInProject } from './flags.service.js';
import { findFlagArchivedState } from './flags.store.js';

/**
 * Favorites belong to users (favorite_features.user_id references users). An API token is not a
 * user: for a token the request is checked (the flag must exist in the project) and then does
 * nothing, answering 200 as for a user, without an event.
 */
export async function setFavorite(
  deps: Deps,
  projectId: string,
  name: string,
  favorite: boolean,
  by: Principal,
) {
  await deps.database.db.transaction().execute(async (tx) => {
    const flag = await findFlagArchivedState(tx, name);
    if (!flag || flag.project !== projectId) throw notInProject(name, projectId, flag?.project);
    if (by.kind !== 'user') return;
    const changed = favorite
      ? await insertFavorite(tx, name, by.userId)
      : await deleteFavorite(tx, name, by.userId);
    if (!changed) return;
    await appendEvent(tx, {
      type: favorite ? 'feature-favorited' : 'feature-unfavorited',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: name,
      project: projectId,
      data: { feature: name },
    });
  });
}
