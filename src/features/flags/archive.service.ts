import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { type FlagRow, lockFlag, lockFlagsInOrder } from '../flag-rows/index.js';
import { deleteArchivedFlag, deleteArchivedFlagsOf } from './archive.store.js';
import { eventData, notInProject, recordArchiveChange } from './flags.service.js';
import { updateFlag } from './flags.store.js';

const unknownFlag = (name: string) => notFound(`Could not find feature flag with name ${name}`);

/**
 * Archives an active flag of the project, in the caller's transaction (the archiveFeature change):
 * archivedAt, the `archived` stage and `feature-archived`. A flag other flags depend on is refused
 * (403), as in Unleash: remove the dependencies first.
 */
export async function archiveIn(tx: Db, deps: Deps, projectId: string, name: string, by: Principal) {
  const before = await lockFlag(tx, name);
  // An archived flag is no longer a flag of the project as far as its routes go (Unleash: 404).
  if (!before || before.project !== projectId || before.archivedAt !== null) {
    throw notInProject(name, projectId, before?.archivedAt === null ? before.project : undefined);
  }
  const now = deps.now();
  const after: FlagRow = { ...before, archivedAt: now };
  await updateFlag(tx, name, { archivedAt: now });
  await recordArchiveChange(tx, before, after, by, now);
}

/** Brings an archived flag back into its project, in the stage it had before it was archived. */
export async function reviveFlag(deps: Deps, name: string, by: Principal) {
  await transaction(deps.database.db, (tx) => reviveIn(tx, deps, name, by));
}

async function reviveIn(tx: Db, deps: Deps, name: string, by: Principal, projectId?: string) {
  const before = await lockFlag(tx, name);
  if (!before || (projectId !== undefined && before.project !== projectId)) throw unknownFlag(name);
  if (before.archivedAt === null) {
    throw invalid(`The feature flag "${name}" is not archived, so it cannot be revived.`);
  }
  const after: FlagRow = { ...before, archivedAt: null };
  await updateFlag(tx, name, { archivedAt: null });
  await recordArchiveChange(tx, before, after, by, deps.now());
}

/**
 * Deletes an archived flag for good, with everything that hangs off it; its events stay. A flag
 * that is not archived is refused (archive it first), so nothing active disappears by mistake.
 */
export async function deleteFlagForGood(deps: Deps, name: string, by: Principal) {
  await transaction(deps.database.db, (tx) => deleteIn(tx, name, by));
}

async function deleteIn(tx: Db, name: string, by: Principal, projectId?: string) {
  const before = await lockFlag(tx, name);
  if (!before || (projectId !== undefined && before.project !== projectId)) throw unknownFlag(name);
  if (before.archivedAt === null || !(await deleteArchivedFlag(tx, name))) {
    throw invalid(`The feature flag "${name}" is not archived; only archived flags can be deleted.`);
  }
  await appendEvent(tx, deletedEvent(before, by));
}

/** `feature-deleted`: the flag as it was, whichever way it is deleted. */
const deletedEvent = (flag: FlagRow, by: Principal) => ({
  type: 'feature-deleted',
  createdBy: by.name,
  createdByUserId: by.userId,
  featureName: flag.name,
  project: flag.project,
  preData: eventData(flag),
});

/**
 * Deletes every archived flag of the project for good, each recorded as deleting one is (a project
 * deletion, which holds the project's row and has checked that no active flag is left).
 */
export async function deleteArchivedFlagsIn(tx: Db, projectId: string, by: Principal) {
  for (const flag of await deleteArchivedFlagsOf(tx, projectId))
    await appendEvent(tx, deletedEvent(flag, by));
}

/**
 * Revives or deletes several archived flags of a project in one transaction, all or nothing (a
 * flag not in the project is a 404, one not archived a 400, and nothing changes), in name order
 * (the lock order), each with the events one at a time would record.
 */
export async function changeArchivedFlags(
  deps: Deps,
  projectId: string,
  names: string[],
  action: 'revive' | 'delete',
  by: Principal,
) {
  const ordered = [...new Set(names)].sort();
  await transaction(deps.database.db, async (tx) => {
    await lockFlagsInOrder(tx, ordered);
    for (const name of ordered) {
      if (action === 'revive') await reviveIn(tx, deps, name, by, projectId);
      else await deleteIn(tx, name, by, projectId);
    }
  });
}
