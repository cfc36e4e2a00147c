import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { type ErrorDetail, invalid, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { findSignalEndpoint } from '../signals/index.js';
import { findUsers } from '../users/index.js';
import { filterProblems } from './actions.filters.js';
import { ACTION_KINDS } from './actions.kinds.js';
import type { ActionSet, ActionSetInput } from './actions.schemas.js';
import {
  deleteActionSet,
  findActionSet,
  insertActionSet,
  listActionSets,
  listRuns,
  projectChoices,
  projectTags,
  replaceActionSet,
  setActionSetEnabled,
} from './actions.store.js';

/**
 * A project's action sets (`/api/admin/projects/:projectId/actions`), as Unleash Enterprise has
 * them: when a signal of the chosen endpoint matches the filters, the actions run, in sort order,
 * as the chosen service account (actions.run.ts). Decisions:
 * - Every operation needs ADMIN, as in Unleash's web UI.
 * - Checked when saved (400 naming the field): the actor is a service account, the source an
 *   existing endpoint, each filter's operator has the value(s) it needs, each action is a known
 *   kind with `project` (this project), `environment` and `featureName` as strings. Whether the
 *   flag and environment exist, and whether the account may change them, is checked when it runs
 *   (they can change in between), and a run that cannot do an action says why.
 * - Events `actions-created|updated|deleted` carry the action set with its actions.
 */

const unknownSet = (project: string, id: number) =>
  notFound(`Could not find action set with id ${id} in project "${project}".`);

async function record(
  tx: Db,
  type: string,
  by: Principal,
  project: string,
  data?: ActionSet,
  preData?: ActionSet,
) {
  await appendEvent(tx, {
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    project,
    ...(data && { data }),
    ...(preData && { preData }),
  });
}

async function requireProject(db: Db, project: string) {
  const choices = await projectChoices(db, project);
  if (!choices) throw notFound(`Could not find project "${project}".`);
  return choices;
}

async function check(db: Db, project: string, input: ActionSetInput) {
  const problems: ErrorDetail[] = [...filterProblems(input.match.payload)];
  const [actor] = await findUsers(db, [input.actorId]);
  if (!actor?.is_service) {
    problems.push({
      path: '/body/actorId',
      message: `There is no service account with id ${input.actorId}.`,
    });
  }
  if (!(await findSignalEndpoint(db, input.match.sourceId))) {
    problems.push({
      path: '/body/match/sourceId',
      message: `There is no signal endpoint with id ${input.match.sourceId}.`,
    });
  }
  input.actions.forEach((a, i) => {
    const at = `/body/actions/${i}`;
    const kind = Object.hasOwn(ACTION_KINDS, a.action) ? ACTION_KINDS[a.action] : undefined;
    if (!kind) {
      problems.push({
        path: `${at}/action`,
        message: `Unknown action "${a.action}": one of ${Object.keys(ACTION_KINDS).join(', ')}.`,
      });
    }
    for (const name of ['project', ...(kind?.parameters ?? [])]) {
      const value = a.executionParams[name];
      if (typeof value !== 'string' || value === '') {
        problems.push({
          path: `${at}/executionParams/${name}`,
          message: `\`${name}\` must be a non-empty string.`,
        });
      } else if (name === 'tag' && value.indexOf(':') <= 0) {
        // Else it would name no flag, silently (flagsTagged splits at the first colon).
        problems.push({
          path: `${at}/executionParams/tag`,
          message: '`tag` must be `type:value`, as the config lists the tags.',
        });
      }
    }
    if (typeof a.executionParams.project === 'string' && a.executionParams.project !== project) {
      problems.push({
        path: `${at}/executionParams/project`,
        message: `An action set of project "${project}" acts in that project only.`,
      });
    }
  });
  if (problems.length > 0) throw invalid('The action set is not valid.', problems);
}

async function uniqueName<T>(project: string, name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (sqlState(error) === '23505')
      throw nameExists(`Project "${project}" already has an action set named "${name}".`);
    throw error;
  }
}

async function locked(tx: Db, project: string, id: number) {
  const set = await findActionSet(tx, project, id, true);
  if (!set) throw unknownSet(project, id);
  return set;
}

const userIdOf = (by: Principal) => (by.userId > 0 ? by.userId : null);

export async function getActionSets(deps: Deps, project: string) {
  await requireProject(deps.database.db, project);
  return { actions: await listActionSets(deps.database.db, project) };
}

export async function getActionSet(deps: Deps, project: string, id: number) {
  const set = await findActionSet(deps.database.db, project, id);
  if (!set) throw unknownSet(project, id);
  return set;
}

export function createActionSet(deps: Deps, project: string, input: ActionSetInput, by: Principal) {
  return uniqueName(project, input.name, () =>
    transaction(deps.database.db, async (tx) => {
      await requireProject(tx, project);
      await check(tx, project, input);
      const id = await insertActionSet(tx, project, input, userIdOf(by), deps.now());
      const created = (await findActionSet(tx, project, id)) as ActionSet;
      await record(tx, 'actions-created', by, project, created);
      return created;
    }),
  );
}

export function changeActionSet(
  deps: Deps,
  project: string,
  id: number,
  input: ActionSetInput,
  by: Principal,
) {
  return uniqueName(project, input.name, () =>
    transaction(deps.database.db, async (tx) => {
      const before = await locked(tx, project, id);
      await check(tx, project, input);
      await replaceActionSet(tx, id, input, userIdOf(by), deps.now());
      const after = (await findActionSet(tx, project, id)) as ActionSet;
      await record(tx, 'actions-updated', by, project, after, before);
      return after;
    }),
  );
}

export function switchActionSet(deps: Deps, project: string, id: number, enabled: boolean, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const before = await locked(tx, project, id);
    await setActionSetEnabled(tx, id, enabled);
    const after = { ...before, enabled };
    await record(tx, 'actions-updated', by, project, after, before);
    return after;
  });
}

export async function removeActionSet(deps: Deps, project: string, id: number, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await locked(tx, project, id);
    await deleteActionSet(tx, id);
    await record(tx, 'actions-deleted', by, project, undefined, before);
  });
}

export async function getRuns(deps: Deps, project: string, id: number, limit: number, offset: number) {
  await getActionSet(deps, project, id);
  return { actionSetEvents: await listRuns(deps.database.db, id, limit, offset) };
}

/** What an action set of this project can do, with the choices of each parameter (Unleash's config). */
export async function getActionConfig(deps: Deps, project: string) {
  const { environments, flags } = await requireProject(deps.database.db, project);
  const tags = await projectTags(deps.database.db, project);
  const parameter = {
    environment: {
      name: 'environment',
      label: 'Environment',
      type: 'select' as const,
      options: environments,
    },
    featureName: { name: 'featureName', label: 'Flag', type: 'select' as const, options: flags },
    tag: { name: 'tag', label: 'Tag', type: 'select' as const, options: tags },
  };
  return Object.fromEntries(
    Object.entries(ACTION_KINDS).map(([name, kind]) => [
      name,
      {
        label: kind.label,
        description: kind.description,
        category: 'Feature flags',
        permissions: kind.permissions,
        parameters: [
          { name: 'project', label: 'Project', type: 'hidden' as const },
          ...kind.parameters.map((p) => parameter[p]),
        ],
      },
    ]),
  );
}
