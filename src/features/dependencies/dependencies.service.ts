import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalidField, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { CreateDependencyInput } from './dependencies.schemas.js';
import {
  copyParents,
  deleteDependencies,
  dependencyRoles,
  type FlagForDependency,
  lockFlags,
  possibleParents,
  projectHasDependencies,
  upsertDependency,
  variantNamesOf,
} from './dependencies.store.js';

const refuse = (message: string) => new AppError('InvalidOperationError', message);

function childInProject(flag: FlagForDependency | undefined, name: string, projectId: string) {
  if (!flag || flag.project !== projectId || flag.archivedAt !== null) {
    throw notFound(`There's no active feature named "${name}" in project "${projectId}".`);
  }
  return flag;
}

/**
 * Makes `child` depend on `feature` (or changes the options of that dependency). Rules, as Unleash
 * has them: one level only (a parent has no parents, a child has no children), no self-dependency,
 * parent active and in the same project, `variants` only when the parent must be enabled.
 */
export async function addDependency(
  deps: Deps,
  projectId: string,
  child: string,
  input: CreateDependencyInput,
  by: Principal,
) {
  const enabled = input.enabled ?? true;
  const variants = input.variants && input.variants.length > 0 ? [...new Set(input.variants)].sort() : null;
  if (variants && !enabled) {
    throw invalidField('/body/variants', 'Variants can only be required when the parent must be enabled.');
  }
  const parent = input.feature;
  await transaction(deps.database.db, async (tx) => {
    const flags = await lockFlags(tx, [child, parent]);
    childInProject(flags.get(child), child, projectId);
    if (child === parent) throw refuse('A feature flag cannot depend on itself.');
    const parentFlag = flags.get(parent);
    if (!parentFlag) throw notFound(`Could not find feature flag with name ${parent}`);
    if (parentFlag.archivedAt !== null) throw refuse(`No active feature ${parent} exists`);
    if (parentFlag.project !== projectId) {
      throw refuse('Parent and child features need to be in the same project');
    }
    if ((await dependencyRoles(tx, child)).hasChildren) {
      throw refuse(
        'Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.',
      );
    }
    if ((await dependencyRoles(tx, parent)).hasParents) {
      throw refuse(
        'Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.',
      );
    }
    await upsertDependency(tx, child, parent, enabled, variants);
    await appendEvent(tx, {
      type: 'feature-dependency-added',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: child,
      project: projectId,
      data: { feature: parent, enabled, ...(variants && { variants }) },
    });
  });
}

/**
 * Removes one dependency of the child (`parent` given) or all of them. Removing what does not
 * exist answers 200 and changes nothing, as in Unleash; an unknown child is a 404.
 */
export async function removeDependencies(
  deps: Deps,
  projectId: string,
  child: string,
  parent: string | undefined,
  by: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    const flags = await lockFlags(tx, [child]);
    const flag = flags.get(child);
    if (!flag || flag.project !== projectId) {
      throw notFound(`There's no feature named "${child}" in project "${projectId}".`);
    }
    const removed = await deleteDependencies(tx, child, parent);
    if (removed.length === 0) return;
    await appendEvent(tx, {
      type: parent === undefined ? 'feature-dependencies-removed' : 'feature-dependency-removed',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: child,
      project: projectId,
      ...(parent === undefined ? { preData: { features: removed } } : { data: { feature: parent } }),
    });
  });
}

export async function listParentOptions(deps: Deps, projectId: string, child: string): Promise<string[]> {
  const db = deps.database.db;
  const flags = await lockFlags(db, [child], false);
  const flag = flags.get(child);
  if (!flag || flag.project !== projectId) {
    throw notFound(`There's no feature named "${child}" in project "${projectId}".`);
  }
  return possibleParents(db, child, projectId);
}

export async function dependenciesExist(deps: Deps, projectId: string): Promise<boolean> {
  return projectHasDependencies(deps.database.db, projectId);
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
export async function listParentVariants(deps: Deps, projectId: string, parent: string): Promise<string[]> {
  const db = deps.database.db;
  const flag = (await lockFlags(db, [parent], false)).get(parent);
  // Unleash answers 200 [] for a flag it does not know (its project page asks on every visit);
  // a flag of another project has no variants to offer here either.
  if (!flag || flag.project !== projectId) return [];
  return variantNamesOf(db, parent);
}
