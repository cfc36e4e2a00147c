import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import type { Applier, Change } from '../changes/index.js';
import { listParents } from '../dependencies/index.js';
import { lockFlagsInOrder } from '../flag-rows/index.js';
import { flagsByName, haveDependencies, orphanedParents } from './archive-bulk.store.js';

const orphanError = (count: number) =>
  new AppError(
    'InvalidOperationError',
    count > 1
      ? 'You can not archive/delete those features since other features depend on them.'
      : 'You can not archive/delete this feature since other features depend on it.',
  );

/**
 * Archives the listed flags of the project in one transaction, as Unleash: names of unknown or
 * already archived flags are ignored; a listed flag of another project refuses the whole request
 * (403), and so does a listed parent whose children are not all listed (they would be orphaned).
 * As one change list: the listed flags' own dependencies are removed (`feature-dependency-removed`),
 * then each flag is archived as the single-flag archive does it (`feature-archived`, stage `archived`).
 * Rows are locked in name order (the lock order, see lockFlag).
 */
export async function archiveFlags(
  deps: Deps,
  changes: Applier,
  projectId: string,
  names: string[],
  by: Principal,
) {
  const ordered = [...new Set(names)].sort();
  await transaction(deps.database.db, async (tx) => {
    await lockFlagsInOrder(tx, ordered);
    const found = await flagsByName(tx, ordered);
    const elsewhere = found.filter((f) => f.project !== projectId).map((f) => f.name);
    if (elsewhere.length > 0) {
      throw new AppError(
        'InvalidOperationError',
        `Only flags of project "${projectId}" can be archived here; not: ${elsewhere.join(', ')}.`,
        [{ message: 'These flags belong to other projects.', affectedItems: elsewhere }],
      );
    }
    const active = found.filter((f) => !f.archived).map((f) => f.name);
    const orphaning = await orphanedParents(tx, active);
    if (orphaning.length > 0) throw orphanError(orphaning.length);
    const at = (feature: string) => ({ project: projectId, feature });
    const list: Change[] = [];
    for (const name of active) {
      for (const parent of await listParents(tx, name))
        list.push({ action: 'deleteDependency', ...at(name), payload: { feature: parent } });
    }
    for (const name of active) list.push({ action: 'archiveFeature', ...at(name) });
    await changes.applyIn(tx, list, { deps, by });
  });
}

/**
 * What archiving the listed flags would do (Unleash's validateArchiveFeatures): which of them are
 * parents of flags not listed, and whether any dependency would go. Flags of other projects and
 * unknown names are left out.
 */
export async function validateArchive(deps: Deps, projectId: string, names: string[]) {
  const db = deps.database.db;
  const found = await flagsByName(db, [...new Set(names)]);
  const mine = found.filter((f) => f.project === projectId && !f.archived).map((f) => f.name);
  const [parentsWithChildFeatures, hasDeletedDependencies] = await Promise.all([
    orphanedParents(db, mine),
    haveDependencies(db, mine),
  ]);
  return { parentsWithChildFeatures, hasDeletedDependencies };
}
