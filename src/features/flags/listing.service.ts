import type { Deps } from '../../deps.js';
import { notFound } from '../../platform/http/errors.js';
import type { Flag } from './flags.schemas.js';
import { toFlag } from './flags.view.js';
import type { ProjectFlags } from './listing.schemas.js';
import { activeProjectExists, listFlagViews } from './listing.store.js';

export const projectNotFound = (id: string) => notFound(`Project with id "${id}" does not exist`);

/** The active flags of a project in Unleash's project-features shape. */
export async function listProjectFlags(deps: Deps, projectId: string): Promise<ProjectFlags> {
  const db = deps.database.db;
  if (!(await activeProjectExists(db, projectId))) throw projectNotFound(projectId);
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
export async function listArchivedFlags(
  deps: Deps,
  projectId?: string,
): Promise<{ version: number; features: Flag[] }> {
  const rows = await listFlagViews(deps.database.db, projectId, true);
  return { version: 1, features: rows.map((row) => toFlag(row, false)) };
}
