import type { Deps } from '../../deps.js';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { appendEvent } from '../events/index.js';
import {
  copyParents,
  lockFlags,
  possibleParents,
  projectHasDependencies,
  variantNamesOf,
} from './dependencies.store.js';

export async function listParentOptions(deps: Deps, projectId: string, child: string): Promise<string[]> {
  const db = deps.database.db;
  const flags = await lockFlags(db, [child], false);
  const flag = flags.get(child);
  if (!flag || flag.project !== projectId) {
    throw notFound(`There's no feature named "${child}" in project "${projectId}".`);
  }
  return possibleParents(db, child, projectId);
}

/** Kept while nothing changes (ADR 0009): the web UI asks on every flag page. */
export async function dependenciesExist(deps: Deps, reads: Reads, projectId: string): Promise<boolean> {
  return reads.read(`dependencies-exist\u0000${projectId}`, () =>
    projectHasDependencies(deps.database.db, projectId),
  );
}

/**
 * Gives the new flag `to` (of `projectId`) the parents of `from`, each recorded as
 * `feature-dependency-added`, as cloning a flag does. Runs in the caller's transaction.
 */
export async function copyDependencies(
  tx: Db,
  from: string,
  to: string,
  projectId: string,
  by: Principal,
): Promise<void> {
  for (const d of await copyParents(tx, from, to)) {
    await appendEvent(tx, {
      type: 'feature-dependency-added',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: to,
      project: projectId,
      data: { feature: d.parent, enabled: d.enabled, ...(d.variants && { variants: d.variants }) },
    });
  }
}

/** What a child may require of the parent: the parent's variant names (404 when not in the project). */
/** Kept while nothing changes (ADR 0009): the web UI asks on every flag page. */
export function listParentVariants(
  deps: Deps,
  reads: Reads,
  projectId: string,
  parent: string,
): Promise<string[]> {
  return reads.read(`parent-variants\u0000${projectId}\u0000${parent}`, () =>
    parentVariants(deps, projectId, parent),
  );
}

async function parentVariants(deps: Deps, projectId: string, parent: string): Promise<string[]> {
  const db = deps.database.db;
  const flag = (await lockFlags(db, [parent], false)).get(parent);
  // Unleash answers 200 [] for a flag it does not know (its project page asks on every visit);
  // a flag of another project has no variants to offer here either.
  if (!flag || flag.project !== projectId) return [];
  return variantNamesOf(db, parent);
}
