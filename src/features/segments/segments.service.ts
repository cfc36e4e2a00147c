import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { AdminSegment, UpsertSegmentInput } from '../shapes/index.js';
import { constraintsProblems, storedConstraint } from '../strategies/index.js';
import type { SegmentStrategies } from './segments.schemas.js';
import {
  findSegment,
  insertSegment,
  listSegments,
  projectExists,
  type SegmentRow,
  type SegmentValues,
  segmentNameTaken,
  segmentsOfStrategy,
  strategiesUsingSegment,
} from './segments.store.js';

export const toSegment = (s: SegmentRow): AdminSegment => ({
  id: s.id,
  name: s.name,
  description: s.description,
  constraints: s.constraints as AdminSegment['constraints'],
  usedInFeatures: s.usedInFeatures,
  usedInProjects: s.usedInProjects,
  project: s.project,
  createdBy: s.createdBy,
  createdAt: new Date(s.createdAt).toISOString(),
});

/** What events record: the segment's own properties (usage counts change without the segment). */
export const eventData = (s: SegmentRow) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  project: s.project,
  constraints: s.constraints,
  createdBy: s.createdBy,
  createdAt: new Date(s.createdAt).toISOString(),
});

export const notFoundSegment = (id: number) => notFound(`Could not find segment with id ${id}.`);

/** Checks constraints and the project; returns the values as stored. */
export async function values(db: Deps['database']['db'], input: UpsertSegmentInput): Promise<SegmentValues> {
  const problems = constraintsProblems(input.constraints, '/body/constraints');
  if (problems.length > 0) throw invalid(problems[0]?.message ?? 'Invalid constraints', problems);
  if (input.project && !(await projectExists(db, input.project))) {
    throw notFound(`Could not find project with id ${input.project}.`);
  }
  return {
    name: input.name,
    description: input.description || null,
    project: input.project || null,
    constraints: input.constraints.map(storedConstraint),
  };
}

export async function getSegments(deps: Deps): Promise<{ segments: AdminSegment[] }> {
  return { segments: (await listSegments(deps.database.db)).map(toSegment) };
}

export async function getSegment(deps: Deps, id: number): Promise<AdminSegment> {
  const s = await findSegment(deps.database.db, id);
  if (!s) throw notFoundSegment(id);
  return toSegment(s);
}

export async function createSegment(
  deps: Deps,
  input: UpsertSegmentInput,
  by: Principal,
): Promise<AdminSegment> {
  return transaction(deps.database.db, async (tx) => {
    const id = await insertSegment(tx, await values(tx, input), by.name);
    if (id === undefined) throw nameExists(`There is already a segment named "${input.name}".`);
    const created = (await findSegment(tx, id)) as SegmentRow;
    await appendEvent(tx, {
      type: 'segment-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      ...(created.project && { project: created.project }),
      data: eventData(created),
    });
    return toSegment(created);
  });
}

export async function getSegmentStrategies(deps: Deps, id: number): Promise<SegmentStrategies> {
  const db = deps.database.db;
  if (!(await findSegment(db, id))) throw notFoundSegment(id);
  return { strategies: await strategiesUsingSegment(db, id) };
}

/** 204 when a segment could be created with the name; 409 when one has it. */
export async function validateSegmentName(deps: Deps, name: string): Promise<void> {
  if (await segmentNameTaken(deps.database.db, name))
    throw nameExists(`There is already a segment named "${name}".`);
}

export async function getStrategySegments(
  deps: Deps,
  strategyId: string,
): Promise<{ segments: AdminSegment[] }> {
  return { segments: (await segmentsOfStrategy(deps.database.db, strategyId)).map(toSegment) };
}
