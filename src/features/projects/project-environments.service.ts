import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { type CreateStrategyInput, finishDraft } from '../strategies/index.js';
import {
  addProjectEnvironment,
  connectFlags,
  countProjectEnvironments,
  environmentExists,
  lockProjectEnvironment,
  lockProjectFlags,
  removeProjectEnvironment,
  setDefaultStrategy,
} from './project-environments.store.js';
import type { DefaultStrategy, ProjectEnvironmentInput } from './projects.schemas.js';
import { findProject } from './projects.store.js';

const by = (p: Principal) => ({ createdBy: p.name, createdByUserId: p.userId });

async function requireProject(tx: Db, projectId: string) {
  const project = await findProject(tx, projectId);
  if (!project) throw notFound(`Could not find project with id "${projectId}".`);
  return project;
}

async function requireEnvironment(tx: Db, environment: string) {
  if (!(await environmentExists(tx, environment))) {
    throw notFound(`Could not find environment with name "${environment}".`);
  }
}

/**
 * The stored form of a default strategy: defined strategy type, existing segments, every list
 * present. Constraint values are checked only for their shape here (the schema).
 */
/**
 * A default strategy is checked and stored as a flag's strategy would be (the strategies slice's
 * rules); its blank `groupId` stays blank and becomes the flag's name when a flag gets it.
 */
async function storedDefaultStrategy(tx: Db, s: CreateStrategyInput, base: string) {
  const draft = await finishDraft(tx, s, { flag: '', defaultStickiness: 'default' }, 0, base);
  return { ...draft, title: draft.title ?? null } as DefaultStrategy;
}

/** Enables an environment in the project: every flag of the project gets a disabled row there. */
export async function addEnvironmentToProject(
  deps: Deps,
  projectId: string,
  input: ProjectEnvironmentInput,
  principal: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    await requireProject(tx, projectId);
    await requireEnvironment(tx, input.environment);
    const strategy = input.defaultStrategy
      ? await storedDefaultStrategy(tx, input.defaultStrategy, '/body/defaultStrategy')
      : undefined;
    if (!(await addProjectEnvironment(tx, projectId, input.environment, strategy))) {
      throw nameExists(
        `The environment "${input.environment}" is already enabled in project "${projectId}".`,
      );
    }
    await lockProjectFlags(tx, projectId);
    await connectFlags(tx, projectId, input.environment);
    await appendEvent(tx, {
      type: 'project-environment-added',
      ...by(principal),
      project: projectId,
      environment: input.environment,
      data: { environment: input.environment, ...(strategy ? { defaultStrategy: strategy } : {}) },
    });
  });
}

/**
 * Disables an environment in the project, deleting the flags' configuration there (rows and
 * strategies). A project keeps at least one environment, as in Unleash.
 */
export async function removeEnvironmentFromProject(
  deps: Deps,
  projectId: string,
  environment: string,
  principal: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    await findProject(tx, projectId, true).then((p) => {
      if (!p) throw notFound(`Could not find project with id "${projectId}".`);
    });
    if (!(await removeProjectEnvironment(tx, projectId, environment))) {
      throw notFound(`The environment "${environment}" is not enabled in project "${projectId}".`);
    }
    if ((await countProjectEnvironments(tx, projectId)) === 0) {
      throw new AppError('InvalidOperationError', 'A project must keep at least one environment.');
    }
    await appendEvent(tx, {
      type: 'project-environment-removed',
      ...by(principal),
      project: projectId,
      environment,
      preData: { environment },
      data: null,
    });
  });
}

/** Sets the strategy that enabling a flag without strategies adds in this project environment. */
export async function updateDefaultStrategy(
  deps: Deps,
  projectId: string,
  environment: string,
  input: CreateStrategyInput,
  principal: Principal,
): Promise<DefaultStrategy> {
  return transaction(deps.database.db, async (tx) => {
    await requireProject(tx, projectId);
    const row = await lockProjectEnvironment(tx, projectId, environment);
    if (!row) throw notFound(`The environment "${environment}" is not enabled in project "${projectId}".`);
    const strategy = await storedDefaultStrategy(tx, input, '/body');
    await setDefaultStrategy(tx, projectId, environment, strategy);
    await appendEvent(tx, {
      type: 'default-strategy-updated',
      ...by(principal),
      project: projectId,
      environment,
      data: strategy,
      preData: row.default_strategy ?? null,
    });
    return strategy;
  });
}
