import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { CloneInput } from './flags.more.schemas.js';
import {
  copyDependencies,
  copyEnvironmentsAndTags,
  insertStrategyCopy,
  parentsOf,
  strategiesToCopy,
} from './flags.more.store.js';
import type { Flag } from './flags.schemas.js';
import {
  checkLimit,
  checkNaming,
  eventData,
  insertNewFlag,
  notInProject,
  readFlag,
} from './flags.service.js';
import { findActiveProject, lockFlag, lockFlagsInOrder, lockProjectForNewFlag } from './flags.store.js';

/**
 * Copies a flag of the project under a new name, as Unleash does: type, description, impression
 * data, tags, per-environment variants, strategies (new ids, segments kept; `groupId` becomes the
 * new name unless `replaceGroupId` is false) and parent dependencies. Environments start disabled.
 * Records `feature-created`, then `feature-strategy-add` per strategy and `feature-dependency-added`
 * per parent, all in one transaction.
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
    await lockFlagsInOrder(tx, [source, ...(await parentsOf(tx, source))]);
    const original = await lockFlag(tx, source);
    if (!original || original.project !== projectId || original.archivedAt !== null) {
      throw notInProject(source, projectId, original?.archivedAt === null ? original.project : undefined);
    }
    if (!project) throw notFound(`Active project with id ${projectId} does not exist`);
    checkNaming(project, input.name);
    await checkLimit(tx, project);
    const flag = await insertNewFlag(tx, {
      name: input.name,
      project: projectId,
      type: original.type,
      description: original.description,
      impressionData: original.impressionData,
      createdByUserId: by.userId,
      createdByName: by.name,
    });
    const base = {
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: flag.name,
      project: projectId,
    };
    await appendEvent(tx, { ...base, type: 'feature-created', data: eventData(flag) });
    await copyEnvironmentsAndTags(tx, source, flag.name);
    for (const s of await strategiesToCopy(tx, source, flag.name)) {
      const id = randomUUID();
      const parameters = { ...(s.parameters as Record<string, string>) };
      if (input.replaceGroupId !== false && 'groupId' in parameters) parameters.groupId = flag.name;
      await insertStrategyCopy(tx, flag.name, id, s, parameters, by.userId);
      await appendEvent(tx, {
        ...base,
        type: 'feature-strategy-add',
        environment: s.environment,
        data: {
          id,
          name: s.strategy_name,
          title: s.title,
          disabled: s.disabled,
          sortOrder: s.sort_order,
          parameters,
          constraints: s.constraints,
          variants: s.variants,
          segments: s.segments,
        },
      });
    }
    for (const d of await copyDependencies(tx, source, flag.name)) {
      await appendEvent(tx, {
        ...base,
        type: 'feature-dependency-added',
        data: { feature: d.parent, enabled: d.enabled, ...(d.variants && { variants: d.variants }) },
      });
    }
    return readFlag(tx, flag.name);
  });
}
