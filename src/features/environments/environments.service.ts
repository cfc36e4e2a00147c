import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalid, nameExists, notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { appendEvent } from '../events/index.js';
import type {
  CreateEnvironmentInput,
  Environment,
  SortOrderInput,
  UpdateEnvironmentInput,
} from './environments.schemas.js';
import {
  countEnabledEnvironments,
  deleteEnvironmentRow,
  type EnvironmentRow,
  findEnvironment,
  insertEnvironment,
  listEnvironments,
  listProjectEnvironmentViews,
  lockEnvironment,
  lockEnvironments,
  projectExists,
  updateEnvironmentRow,
} from './environments.store.js';

const by = (p: Principal) => ({ createdBy: p.name, createdByUserId: p.userId });
const missing = (name: string) => notFound(`Could not find environment with name "${name}".`);

/** The environment as events record it in data/preData. */
const eventData = (e: EnvironmentRow) => ({
  name: e.name,
  type: e.type,
  enabled: e.enabled,
  protected: e.protected,
  sortOrder: e.sortOrder,
});

export async function getAllEnvironments(deps: Deps) {
  return { version: 1, environments: await listEnvironments(deps.database.db) };
}

export async function getEnvironment(deps: Deps, name: string): Promise<Environment> {
  const env = await findEnvironment(deps.database.db, name);
  if (!env) throw missing(name);
  return env;
}

async function read(tx: Db, name: string): Promise<Environment> {
  const env = await findEnvironment(tx, name);
  if (!env) throw missing(name);
  return env;
}

/** Creates an environment; no project gets it until added there. */
export async function createEnvironment(deps: Deps, input: CreateEnvironmentInput, principal: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const created = await insertEnvironment(tx, {
      name: input.name,
      type: input.type,
      enabled: input.enabled ?? true,
      sortOrder: input.sortOrder,
    });
    if (!created) throw nameExists(`An environment named "${input.name}" already exists.`);
    const env = await read(tx, input.name);
    await appendEvent(tx, {
      type: 'environment-created',
      ...by(principal),
      environment: env.name,
      data: eventData(env),
    });
    return env;
  });
}

/** Locks the environment; protected ones refuse changes (`what` names the operation). */
async function lockChangeable(tx: Db, name: string, what: string): Promise<EnvironmentRow> {
  const env = await lockEnvironment(tx, name);
  if (!env) throw missing(name);
  if (env.protected)
    throw new AppError('InvalidOperationError', `Unable to ${what} the protected environment "${name}".`);
  return env;
}

/** Writes the environment's new state and its `environment-updated` event, in the caller's transaction. */
async function writeEnvironment(tx: Db, before: EnvironmentRow, after: EnvironmentRow, principal: Principal) {
  await updateEnvironmentRow(tx, after);
  await appendEvent(tx, {
    type: 'environment-updated',
    ...by(principal),
    environment: after.name,
    data: eventData(after),
    preData: eventData(before),
  });
}

/** Changes type and/or sortOrder; the properties left out keep their values. */
export async function updateEnvironment(
  deps: Deps,
  name: string,
  input: UpdateEnvironmentInput,
  principal: Principal,
) {
  return transaction(deps.database.db, async (tx) => {
    const before = await lockChangeable(tx, name, 'update');
    const after = {
      ...before,
      ...(input.type !== undefined && { type: input.type }),
      ...(input.sortOrder !== undefined && { sortOrder: input.sortOrder }),
    };
    await writeEnvironment(tx, before, after, principal);
    return read(tx, name);
  });
}

/**
 * Deletes an environment with every project's and flag's configuration in it (cascade).
 * Protected environments cannot be deleted.
 */
export async function deleteEnvironment(deps: Deps, name: string, principal: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const env = await lockChangeable(tx, name, 'delete');
    await deleteEnvironmentRow(tx, name);
    await appendEvent(tx, {
      type: 'environment-deleted',
      ...by(principal),
      environment: name,
      data: null,
      preData: eventData(env),
    });
  });
}

/**
 * Enables or disables an environment (`environment-updated` when the state changes). As in
 * Unleash, the last enabled environment cannot be disabled (400).
 */
export async function setEnvironmentEnabled(
  deps: Deps,
  name: string,
  enabled: boolean,
  principal: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    const before = await lockEnvironment(tx, name);
    if (!before) throw missing(name);
    if (!enabled && before.enabled && (await countEnabledEnvironments(tx)) <= 1) {
      throw invalid('Environment cannot be disabled: at least one environment must stay enabled.');
    }
    const after = { ...before, enabled };
    await writeEnvironment(tx, before, after, principal);
  });
}

/**
 * Sets the sort order of the named environments (all or nothing: an unknown name is a 404 and
 * changes nothing); each one whose order changed records `environment-updated`. Unlike other
 * changes, protected environments may be reordered, as in Unleash.
 */
export async function updateSortOrder(deps: Deps, input: SortOrderInput, principal: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const names = Object.keys(input);
    const locked = await lockEnvironments(tx, names);
    const unknown = names.find((n) => !locked.some((e) => e.name === n));
    if (unknown !== undefined) throw missing(unknown);
    for (const before of locked) {
      const sortOrder = input[before.name] as number;
      if (sortOrder !== before.sortOrder)
        await writeEnvironment(tx, before, { ...before, sortOrder }, principal);
    }
  });
}

/** Every environment as one project sees it (404 for an unknown project). */
export async function getProjectEnvironments(deps: Deps, reads: Reads, projectId: string) {
  // Kept while nothing changes (environments, tokens and flags all move the change version).
  const environments = await reads.read(`project-environments\u0000${projectId}`, async () =>
    (await projectExists(deps.database.db, projectId))
      ? await listProjectEnvironmentViews(deps.database.db, projectId)
      : null,
  );
  if (!environments) throw notFound(`Could not find project with id "${projectId}".`);
  return { version: 1, environments };
}
