import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { favoriteFlags } from './favorites.service.js';
import type { Flag } from './flags.schemas.js';
import { toFlag } from './flags.view.js';
import type { ProjectFlags } from './listing.schemas.js';
import { activeProjectExists, listFlagViews } from './listing.store.js';

export const projectNotFound = (id: string) => notFound(`Project with id "${id}" does not exist`);

/** The active flags of a project in Unleash's project-features shape. */
export async function listProjectFlags(
  deps: Deps,
  reads: Reads,
  projectId: string,
  by: Principal | null,
): Promise<ProjectFlags> {
  const [list, favorites] = await Promise.all([
    reads.read(`project-flags\u0000${projectId}`, () => buildProjectFlags(deps, projectId)),
    favoriteFlags(deps, reads, by),
  ]);
  if (!list) throw projectNotFound(projectId);
  if (favorites.size === 0) return list;
  return {
    ...list,
    features: list.features.map((f) => (favorites.has(f.name) ? { ...f, favorite: true } : f)),
  };
}

async function buildProjectFlags(deps: Deps, projectId: string): Promise<ProjectFlags | null> {
  const db = deps.database.db;
  if (!(await activeProjectExists(db, projectId))) return null;
  const rows = await listFlagViews(db, projectId, false);
  const features = rows.map((row) => {
    const flag = toFlag(row, false);
    return {
      name: flag.name,
      type: flag.type,
      description: flag.description,
      stale: flag.stale,
      favorite: flag.favorite,
      impressionData: flag.impressionData,
      createdAt: flag.createdAt,
      environments: flag.environments.map((e) => ({
        name: e.name,
        type: e.type,
        enabled: e.enabled,
        sortOrder: e.sortOrder,
        variantCount: e.variantCount,
        lastSeenAt: e.lastSeenAt,
        hasStrategies: e.hasStrategies,
        hasEnabledStrategies: e.hasEnabledStrategies,
      })),
      tags: flag.tags,
    };
  });
  return { version: 1, features };
}

/** Archived flags, of one project or of all; an unknown project simply has none. */
export function listArchivedFlags(
  deps: Deps,
  reads: Reads,
  projectId?: string,
): Promise<{ version: number; features: Flag[] }> {
  return reads.read(`archived-flags\u0000${projectId ?? '\u0000'}`, async () => {
    const rows = await listFlagViews(deps.database.db, projectId, true);
    return { version: 1, features: rows.map((row) => toFlag(row, false)) };
  });
}
