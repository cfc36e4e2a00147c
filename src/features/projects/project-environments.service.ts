import type { Deps } from '../../deps.js';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorDetail, invalid, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import {
  addProjectEnvironment,
  connectFlags,
  countProjectEnvironments,
  environmentExists,
  lockProjectEnvironment,
  missingSegments,
  removeProjectEnvironment,
  setDefaultStrategy,
  strategyDefined,
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
async function storedDefaultStrategy(tx: Db, s: DefaultStrategy, base: string) {
  const problems: ErrorDetail[] = [];
  if (!(await strategyDefined(tx, s.name))) {
    problems.push({ path: `${base}/name`, message: `There is no strategy type named "${s.name}".` });
  }
  const segments = [...new Set(s.segments ?? [])];
  for (const id of await missingSegments(tx, segments)) {
    problems.push({ path: `${base}/segments`, message: `There is no segment with id ${id}.` });
  }
  if (problems.length > 0) throw invalid(problems[0]?.message ?? 'Invalid default strategy', problems);
  return {
    name: s.name,
    title: s.title ?? null,
    disabled: s.disabled ?? false,
    sortOrder: s.sortOrder ?? 0,
    constraints: s.constraints ?? [],
    variants: s.variants ?? [],
    parameters: s.parameters ?? {},
    segments,
  };
}

/** Enables an environment in the project: every flag of the project gets a disabled row there. */
export async function addEnvironmentToProject(
  deps: Deps,
  projectId: string,
  input: ProjectEnvironmentInput,
  principal: Principal,
) {
  await deps.database.db.transaction().execute(async (tx) => {
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
  await deps.database.db.transaction().execute(async (tx) => {
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
  input: DefaultStrategy,
  principal: Principal,
) {
  return deps.database.db.transaction().execute(async (tx) => {
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
