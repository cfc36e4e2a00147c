import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField } from '../../platform/http/errors.js';
import { copyDependencies, listParents } from '../dependencies/index.js';
import { lockFlag, lockFlagsInOrder } from '../flag-rows/index.js';
import { copyStrategies } from '../strategies/index.js';
import { copyFlagTags } from '../tags/index.js';
import { copyEnvironmentVariants } from '../variants/index.js';
import type { CloneInput } from './clone.schemas.js';
import type { Flag } from './flags.schemas.js';
import { admitNewFlag, insertNewFlag, notInProject, readFlag, recordCreated } from './flags.service.js';
import { findActiveProject, lockProjectForNewFlag } from './flags.store.js';

/**
 * Copies a flag of the project under a new name, as Unleash does: type, description, impression
 * data, tags, per-environment variants, strategies (new ids, segments kept; `groupId` becomes the
 * new name unless `replaceGroupId` is false) and parent dependencies. Environments start disabled.
 * Each table's own slice copies its rows. Records `feature-created`, then `feature-strategy-add` per
 * strategy and `feature-dependency-added` per parent, all in one transaction.
 */
export async function cloneFlag(
  deps: Deps,
  projectId: string,
  source: string,
  input: CloneInput,
  by: Principal,
): Promise<Flag> {
  if (input.name === '.' || input.name === '..')
    throw invalidField('/body/name', '"." and ".." are not flag names.');
  return transaction(deps.database.db, async (tx) => {
    // The project's row before the source flag's (the lock order, see lockFlag): inserting the
    // copy locks the project row, and a project-wide change holds it while it locks the flags.
    const project = await findActiveProject(tx, projectId, false);
    if (project) await lockProjectForNewFlag(tx, project);
    // The source and the parents the copy will reference, in name order; then the source's row.
    await lockFlagsInOrder(tx, [source, ...(await listParents(tx, source))]);
    const original = await lockFlag(tx, source);
    if (!original || original.project !== projectId || original.archivedAt !== null) {
      throw notInProject(source, projectId, original?.archivedAt === null ? original.project : undefined);
    }
    await admitNewFlag(tx, project, projectId, input.name);
    const flag = await insertNewFlag(tx, {
      name: input.name,
      project: projectId,
      type: original.type,
      description: original.description,
      impressionData: original.impressionData,
      createdByUserId: by.userId,
      createdByName: by.name,
    });
    await recordCreated(tx, flag, by);
    await copyEnvironmentVariants(tx, source, flag.name);
    await copyFlagTags(tx, source, flag.name);
    const to = { projectId, featureName: flag.name };
    const groupId = input.replaceGroupId === false ? undefined : flag.name;
    await copyStrategies(tx, source, to, groupId, by);
    await copyDependencies(tx, source, flag.name, projectId, by);
    return readFlag(tx, flag.name);
  });
}
