import { AppError, invalidField, notFound } from '../../platform/http/errors.js';
import type { ChangeHandlers } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import {
  deleteDependencies,
  dependencyRoles,
  type FlagForDependency,
  lockFlags,
  upsertDependency,
} from './dependencies.store.js';

const refuse = (message: string) => new AppError('InvalidOperationError', message);

function activeChild(flag: FlagForDependency | undefined, name: string, projectId: string) {
  if (!flag || flag.project !== projectId || flag.archivedAt !== null) {
    throw notFound(`There's no active feature named "${name}" in project "${projectId}".`);
  }
}

/**
 * Where a flag's dependencies change, and the events that records: the dependency changes'
 * handlers (the applier of src/features/changes/ runs them in its transaction, holding the child
 * and the parent). Rules, as Unleash has them: one level only (a parent has no parents, a child
 * has no children), no self-dependency, parent active and in the same project, `variants` only
 * when the parent must be enabled.
 */
export const dependencyChanges: Pick<ChangeHandlers, 'addDependency' | 'deleteDependency'> = {
  addDependency: {
    alsoLocks: (change) => [change.payload.feature],
    async apply(tx, change, { by }) {
      const { project, feature: child, payload } = change;
      const enabled = payload.enabled ?? true;
      const variants =
        payload.variants && payload.variants.length > 0 ? [...new Set(payload.variants)].sort() : null;
      if (variants && !enabled) {
        throw invalidField(
          '/body/variants',
          'Variants can only be required when the parent must be enabled.',
        );
      }
      const parent = payload.feature;
      const flags = await lockFlags(tx, [child, parent]);
      activeChild(flags.get(child), child, project);
      if (child === parent) throw refuse('A feature flag cannot depend on itself.');
      const parentFlag = flags.get(parent);
      if (!parentFlag) throw notFound(`Could not find feature flag with name ${parent}`);
      if (parentFlag.archivedAt !== null) throw refuse(`No active feature ${parent} exists`);
      if (parentFlag.project !== project) {
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
        project,
        data: { feature: parent, enabled, ...(variants && { variants }) },
      });
      return undefined;
    },
  },

  deleteDependency: {
    // Removing what does not exist changes nothing and records nothing, as in Unleash; an unknown
    // child is a 404.
    async apply(tx, change, { by }) {
      const { project, feature: child } = change;
      const parent = change.payload?.feature;
      const flag = (await lockFlags(tx, [child])).get(child);
      if (!flag || flag.project !== project) {
        throw notFound(`There's no feature named "${child}" in project "${project}".`);
      }
      const removed = await deleteDependencies(tx, child, parent);
      if (removed.length === 0) return undefined;
      await appendEvent(tx, {
        type: parent === undefined ? 'feature-dependencies-removed' : 'feature-dependency-removed',
        createdBy: by.name,
        createdByUserId: by.userId,
        featureName: child,
        project,
        ...(parent === undefined ? { preData: { features: removed } } : { data: { feature: parent } }),
      });
      return undefined;
    },
  },
};
