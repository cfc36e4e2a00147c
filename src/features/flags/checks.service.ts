import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { findFlagArchivedState } from '../flag-rows/index.js';
import { countLifecycleStages } from './checks.store.js';
import { FLAG_NAME_PATTERN, type Flag } from './flags.schemas.js';
import { checkNaming, getFlag } from './flags.service.js';
import { findActiveProject } from './flags.store.js';

const URL_FRIENDLY = new RegExp(FLAG_NAME_PATTERN);

/**
 * Whether a flag could be created with this name: URL-friendly (400), not taken by any flag,
 * archived or not (409), and matching the naming pattern of `projectId` when given (400; an
 * unknown project is a 404). Creating the flag checks all of this again.
 */
export async function validateFlagName(deps: Deps, name: string, projectId: string | null | undefined) {
  if (!URL_FRIENDLY.test(name))
    throw invalidField(
      '/body/name',
      `"${name}" is not URL-friendly: use 1-100 letters, digits or _ . ! ~ * ' ( ) -`,
    );
  const db = deps.database.db;
  const existing = await findFlagArchivedState(db, name);
  if (existing)
    throw nameExists(
      existing.archived_at
        ? `An archived flag named "${name}" already exists. Revive it or delete it to reuse the name.`
        : `A flag named "${name}" already exists.`,
    );
  if (projectId) {
    const project = await findActiveProject(db, projectId, false);
    if (!project) throw notFound(`Could not find project with id "${projectId}".`);
    checkNaming(project, name);
  }
}

/** One environment of a flag as the flag shows it (404 when the project does not have it). */
export async function getFlagEnvironment(
  deps: Deps,
  reads: Reads,
  projectId: string,
  name: string,
  environment: string,
  by: Principal | null,
): Promise<Flag['environments'][number]> {
  const flag = await getFlag(deps, reads, projectId, name, by);
  const found = flag.environments.find((e) => e.name === environment);
  if (!found)
    throw notFound(
      `Could not find environment "${environment}" for flag "${name}" in project "${projectId}".`,
    );
  return found;
}

export async function getLifecycleCounts(deps: Deps) {
  const counts = await countLifecycleStages(deps.database.db);
  return {
    initial: counts.initial ?? 0,
    preLive: counts['pre-live'] ?? 0,
    live: counts.live ?? 0,
    completed: counts.completed ?? 0,
    archived: counts.archived ?? 0,
  };
}
