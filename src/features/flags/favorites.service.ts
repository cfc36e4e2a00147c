import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import type { Reads } from '../../platform/read-cache.js';
import { appendEvent } from '../events/index.js';
import { lockFlag } from '../flag-rows/index.js';
import { deleteFavorite, insertFavorite, listFavoriteFlags } from './favorites.store.js';
import { notInProject } from './flags.service.js';

const NONE: ReadonlySet<string> = new Set();

/**
 * The caller's favorite flags (none for API tokens), through the read cache: favoriting records an
 * event, so the shared flag views stay shared and each caller's favorites are laid over them.
 */
export function favoriteFlags(deps: Deps, reads: Reads, by: Principal | null): Promise<ReadonlySet<string>> {
  if (by?.kind !== 'user') return Promise.resolve(NONE);
  // The set itself is kept (shared, read-only), so a request allocates nothing for it.
  return reads.read(
    `favorite-flags\u0000${by.userId}`,
    async (): Promise<ReadonlySet<string>> => new Set(await listFavoriteFlags(deps.database.db, by.userId)),
  );
}

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
  await transaction(deps.database.db, async (tx) => {
    // The flag's row first, as every write to a flag (see lockFlag).
    const flag = await lockFlag(tx, name);
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
