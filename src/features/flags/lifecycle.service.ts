import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { deleteStage, findFlagArchivedState, listStages, lockFlag, upsertStage } from '../flag-rows/index.js';
import { notInProject } from './flags.service.js';
import type { CompleteInput, Lifecycle } from './lifecycle.schemas.js';

/** The stages the flag entered, oldest first (docs/adr/0006-flag-lifecycle.md). */
export async function getLifecycle(deps: Deps, projectId: string, name: string): Promise<Lifecycle> {
  const db = deps.database.db;
  const flag = await findFlagArchivedState(db, name);
  if (!flag || flag.project !== projectId) throw notInProject(name, projectId, flag?.project);
  const stages = await listStages(db, name);
  return stages.map((s) => ({
    stage: s.stage as Lifecycle[number]['stage'],
    ...(s.status !== null && { status: s.status }),
    enteredStageAt: new Date(s.created_at).toISOString(),
  }));
}

/** The flag, locked, when it is an active flag of the project. */
async function activeFlag(tx: Db, projectId: string, name: string) {
  const flag = await lockFlag(tx, name);
  if (!flag || flag.project !== projectId) throw notInProject(name, projectId, flag?.project);
  if (flag.archivedAt !== null) {
    throw invalid(`The feature flag "${name}" is archived; revive it before changing its lifecycle.`);
  }
  return flag;
}

/** Enters `completed` (again) with the status; records `feature-completed`. */
export async function completeFlag(
  deps: Deps,
  projectId: string,
  name: string,
  input: CompleteInput,
  by: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    await activeFlag(tx, projectId, name);
    const statusValue = input.statusValue ?? null;
    await upsertStage(tx, name, 'completed', deps.now(), input.status, statusValue);
    await appendEvent(tx, {
      type: 'feature-completed',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: name,
      project: projectId,
      data: { status: input.status, statusValue },
    });
  });
}

/** Leaves `completed`: the flag returns to the stage it had before; records `feature-uncompleted`. */
export async function uncompleteFlag(deps: Deps, projectId: string, name: string, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    await activeFlag(tx, projectId, name);
    if (!(await deleteStage(tx, name, 'completed'))) {
      throw invalid(`The feature flag "${name}" is not completed.`);
    }
    await appendEvent(tx, {
      type: 'feature-uncompleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: name,
      project: projectId,
    });
  });
}
