import { isDeepStrictEqual } from 'node:util';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, nameExists, notFound } from '../../platform/http/errors.js';
import { dropProjectFromTokens } from '../access/index.js';
import { appendEvent } from '../events/index.js';
import { deleteArchivedFlagsIn } from '../flags/index.js';
import { addProjectOwner } from '../users/index.js';
import { checkFeatureNaming } from './projects.naming.js';
import type {
  CreateProjectInput,
  FeatureNamingInput,
  ProjectCreated,
  ProjectSettingsInput,
} from './projects.schemas.js';
import {
  addFavorite,
  attachEnvironments,
  countFlags,
  deleteProjectRow,
  findProject,
  insertProject,
  listProjectEnvironments,
  type ProjectRow,
  removeFavorite,
  updateProjectRow,
} from './projects.store.js';

/** The project as events record it in data/preData. */
function eventData(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    mode: p.mode,
    defaultStickiness: p.defaultStickiness,
    featureLimit: p.featureLimit,
    featureNaming: p.featureNaming,
  };
}

const by = (principal: Principal) => ({ createdBy: principal.name, createdByUserId: principal.userId });

/** A URL-safe id from a name: what a project created without an id gets (lower case, dashes). */
function idFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_.~-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90);
  return slug === '' || slug === '.' || slug === '..' ? 'project' : slug;
}

export async function createProject(deps: Deps, input: CreateProjectInput, principal: Principal) {
  const featureNaming = checkFeatureNaming(input.featureNaming ?? null, '/body/featureNaming');
  return transaction(deps.database.db, async (tx): Promise<ProjectCreated> => {
    const values = {
      name: input.name,
      description: input.description || null,
      mode: input.mode ?? 'open',
      defaultStickiness: input.defaultStickiness ?? 'default',
      featureLimit: input.featureLimit ?? null,
      featureNaming,
    } as const;
    const project = input.id
      ? await insertProject(tx, { id: input.id, ...values }, deps.now())
      : await insertWithDerivedId(tx, values, deps.now());
    if (!project) throw nameExists(`A project with id "${input.id}" already exists.`);
    const wanted = input.environments && [...new Set(input.environments)];
    const environments = await attachEnvironments(tx, project.id, wanted);
    if (wanted && environments.length !== wanted.length) {
      const missing = wanted.filter((e) => !environments.includes(e));
      throw notFound(`Environment(s) ${missing.map((m) => `"${m}"`).join(', ')} do not exist.`);
    }
    const created = { ...eventData(project), environments };
    // A person who creates a project owns it (API tokens are not people).
    if (principal.kind === 'user') await addProjectOwner(tx, principal.userId, project.id);
    await appendEvent(tx, { type: 'project-created', ...by(principal), project: project.id, data: created });
    return created;
  });
}

/** Tries `slug`, `slug-2`, `slug-3`, ... until an insert succeeds (the primary key decides). */
async function insertWithDerivedId(
  tx: Db,
  values: Omit<ProjectRow, 'id' | 'createdAt' | 'updatedAt' | 'archivedAt'>,
  now: Date,
) {
  const base = idFromName(values.name);
  for (let n = 1; ; n++) {
    const project = await insertProject(tx, { id: n === 1 ? base : `${base}-${n}`, ...values }, now);
    if (project) return project;
  }
}

interface ProjectChanges {
  name?: string;
  description?: string | null;
  mode?: ProjectRow['mode'];
  defaultStickiness?: string;
  featureLimit?: number | null;
  featureNaming?: FeatureNamingInput | null;
}

/**
 * Partial update shared by PUT /projects/:id and PUT /projects/:id/settings: the properties sent
 * change, the others keep their values, null clears. One `project-updated` event with data and
 * preData; a change to nothing records nothing.
 */
export async function updateProject(
  deps: Deps,
  projectId: string,
  input: ProjectChanges,
  principal: Principal,
) {
  const naming =
    input.featureNaming === undefined
      ? undefined
      : checkFeatureNaming(input.featureNaming, '/body/featureNaming');
  await transaction(deps.database.db, async (tx) => {
    const before = await findProject(tx, projectId, true);
    if (!before) throw notFound(`Could not find project with id "${projectId}".`);
    const after: ProjectRow = {
      ...before,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description || null }),
      ...(input.mode !== undefined && { mode: input.mode }),
      ...(input.defaultStickiness !== undefined && { defaultStickiness: input.defaultStickiness }),
      ...(input.featureLimit !== undefined && { featureLimit: input.featureLimit }),
      ...(naming !== undefined && { featureNaming: naming }),
    };
    // Nothing changed: no write, so `updatedAt` does not move without an event (the event log's
    // version keys the read cache; a bare timestamp change was served stale, found by test/fuzz).
    if (isDeepStrictEqual(after, before)) return;
    await updateProjectRow(tx, after, deps.now());
    await appendEvent(tx, {
      type: 'project-updated',
      ...by(principal),
      project: projectId,
      data: eventData(after),
      preData: eventData(before),
    });
  });
}

export const updateProjectSettings = (
  deps: Deps,
  projectId: string,
  input: ProjectSettingsInput,
  principal: Principal,
) => updateProject(deps, projectId, input, principal);

/**
 * Deletes a project that has no active flags. As Unleash does, its archived flags are deleted
 * permanently with it (a `feature-deleted` event each). `default` cannot be deleted.
 */
export async function deleteProject(deps: Deps, projectId: string, principal: Principal) {
  if (projectId === 'default') {
    throw new AppError('InvalidOperationError', 'You can not delete the default project.');
  }
  await transaction(deps.database.db, async (tx) => {
    const project = await findProject(tx, projectId, true);
    if (!project) throw notFound(`Could not find project with id "${projectId}".`);
    const { active } = await countFlags(tx, projectId);
    if (active > 0) {
      throw new AppError(
        'InvalidOperationError',
        `You can not delete a project with active feature flags (${active} in "${projectId}"). Archive them first.`,
      );
    }
    const environments = (await listProjectEnvironments(tx, projectId)).map((e) => e.environment);
    await deleteArchivedFlagsIn(tx, projectId, principal);
    await dropProjectFromTokens(tx, projectId);
    await deleteProjectRow(tx, projectId);
    await appendEvent(tx, {
      type: 'project-deleted',
      ...by(principal),
      project: projectId,
      data: null,
      preData: { ...eventData(project), environments },
    });
  });
}

/**
 * Favorites belong to users (favorite_projects.user_id references users). An API token is not a
 * user: for a token the call answers 200 and changes nothing (no row, no event); the project must
 * still exist.
 */
export async function setFavorite(deps: Deps, projectId: string, favorite: boolean, principal: Principal) {
  await transaction(deps.database.db, async (tx) => {
    if (!(await findProject(tx, projectId))) throw notFound(`Could not find project with id "${projectId}".`);
    if (principal.kind !== 'user') return;
    const changed = favorite
      ? await addFavorite(tx, projectId, principal.userId)
      : await removeFavorite(tx, projectId, principal.userId);
    if (!changed) return;
    await appendEvent(tx, {
      type: favorite ? 'project-favorited' : 'project-unfavorited',
      ...by(principal),
      project: projectId,
      data: { project: projectId, favorite },
    });
  });
}
