import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorDetail, notFound } from '../../platform/http/errors.js';
import { gateDirectWrite } from '../change-requests/index.js';
import { createMissingContextFields } from '../context/index.js';
import { setParentsOfFlags } from '../dependencies/index.js';
import { appendEvents, flagsWithOwnEventsSince, newestEventId } from '../events/index.js';
import { lockProjectAndFlags, setLinksOfFlags, upsertFlags } from '../flags/index.js';
import { createSegments } from '../segments/index.js';
import { setFlagStrategies, setFlagsEnabled } from '../strategies/index.js';
import { createMissingTagTypes, setTagsOfFlags } from '../tags/index.js';
import { setFlagsEnvironmentVariants } from '../variants/index.js';
import { planSegments } from './import.segments.js';
import {
  contextFields,
  dependenciesTouching,
  existingFlags,
  findTargetProject,
  flagsWithStrategies,
  projectEnvironmentType,
  segmentsByName,
  strategyTypes,
  tagTypeNames,
} from './import.store.js';
import { checkImport, type ImportFacts, OVERWRITTEN } from './import.validate.js';
import type { ImportInput, ImportItem, ImportValidation } from './transfer.schemas.js';

/** Every flag name a document mentions: its flags and their parents (what an import locks and reads). */
function namesIn(input: ImportInput): string[] {
  const names = new Set(input.data.features.map((f) => f.name));
  for (const d of input.data.dependencies ?? []) for (const p of d.dependencies) names.add(p.feature);
  return [...names];
}

/** Reads what the rules need, a query per kind of row; 404 for an unknown project or environment. */
async function readFacts(db: Db, input: ImportInput): Promise<ImportFacts> {
  const { data } = input;
  const project = await findTargetProject(db, input.project);
  if (!project) throw notFound(`Active project with id ${input.project} does not exist`);
  const environmentType = await projectEnvironmentType(db, input.project, input.environment);
  if (environmentType === undefined) {
    throw notFound(
      `The environment "${input.environment}" does not exist or is not enabled in project "${input.project}".`,
    );
  }
  const names = namesIn(input);
  const [flags, types, fields, segments, tagTypes, withStrategies, dependencies] = await Promise.all([
    existingFlags(db, names),
    strategyTypes(db, [...new Set(data.featureStrategies.map((s) => s.name))]),
    contextFields(db, [...new Set((data.contextFields ?? []).map((c) => c.name))]),
    segmentsByName(db, [...new Set((data.segments ?? []).map((s) => s.name))]),
    tagTypeNames(db, [...new Set((data.featureTags ?? []).map((t) => t.tagType))]),
    flagsWithStrategies(
      db,
      data.features.map((f) => f.name),
      input.environment,
    ),
    dependenciesTouching(db, names),
  ]);
  return {
    project,
    environmentType,
    flags,
    strategyTypes: types,
    contextFields: fields,
    segments,
    tagTypes,
    withStrategies,
    dependencies,
    segmentPlan: planSegments(input, segments),
  };
}

/** The 400 of a refused import: the validation's errors, as validate lists them. */
function refused(errors: ImportItem[]): AppError {
  const details = errors.map((e) => ({ message: e.message, affectedItems: e.affectedItems }));
  return new AppError(
    'ValidationError',
    `The import was refused and nothing was changed: ${errors.length} problem(s), listed in details as validation lists them.`,
    details as ErrorDetail[],
  );
}

function forbidden(input: ImportInput, validation: ImportValidation): AppError {
  const names = validation.permissions.flatMap((p) => p.affectedItems);
  return new AppError(
    'NoAccessError',
    `You don't have the required permissions to perform this import in project "${input.project}" and environment "${input.environment}". You need: ${names.join(', ')}.`,
    names.map((message) => ({ message })),
  );
}

/** What applying a document did (or, rolled back, would do). */
interface Applied {
  validation: ImportValidation;
  /** Events recorded; 0 when the document changes nothing. */
  changes: number;
  /** The imported flags that changed, by name. */
  changed: string[];
}

/**
 * Applies the document in the caller's transaction when the rules allow it. The project's row and
 * the flags' rows are locked first (in name order, the lock order), missing segments the document
 * defines are created, then the rules run on what the database holds. Each owning slice writes its
 * part in batches and records an event per change.
 */
async function apply(tx: Db, input: ImportInput, by: Principal, clock: () => Date): Promise<Applied> {
  const { project, environment } = input;
  await lockProjectAndFlags(tx, project, namesIn(input));
  let facts = await readFacts(tx, input);
  const before = await newestEventId(tx);
  if (facts.segmentPlan.problems.length === 0 && facts.segmentPlan.create.length > 0) {
    const ids = await createSegments(tx, facts.segmentPlan.create, by);
    facts = withPlannedSegments(facts, ids);
  }
  const { validation, plan } = await checkImport(input, facts, by);
  if (validation.errors.length > 0 || validation.permissions.length > 0) {
    return { validation, changes: 0, changed: [] };
  }
  const where = { project, environment };
  // Read after the locks and reads: a stage entered now must not come before the stage the
  // database dated at the transaction's start (its clock has microseconds, Date milliseconds).
  const now = clock();
  let changes = facts.segmentPlan.create.length;
  changes += await createMissingContextFields(tx, plan.contextFields, by);
  changes += await createMissingTagTypes(tx, plan.tagTypes, by);
  const production = facts.environmentType === 'production';
  // New flags get their tags and, when turned on here, their lifecycle stages with the insert.
  const on = new Set([...plan.enabled].filter(([, enabled]) => enabled).map(([flag]) => flag));
  changes += await upsertFlags(tx, project, plan.flags, by, {
    tags: plan.tags,
    live: { flags: on, production, at: now },
  });
  changes += await setTagsOfFlags(tx, project, plan.tags, by);
  changes += await setFlagStrategies(tx, where, plan.strategies, by);
  changes += await setFlagsEnvironmentVariants(tx, where, plan.variants, by);
  changes += await setFlagsEnabled(tx, { ...where, production }, plan.enabled, by, now);
  changes += await setParentsOfFlags(tx, project, plan.parents, by);
  if (plan.links) changes += await setLinksOfFlags(tx, project, plan.links, by, now);
  const imported = new Set(plan.flags.map((f) => f.name));
  const changed =
    changes === 0 ? [] : (await flagsWithOwnEventsSince(tx, before)).filter((f) => imported.has(f));
  return { validation, changes, changed };
}

/** Thrown to roll a validation's trial import back. */
class TrialDone extends Error {
  constructor(readonly applied: Applied) {
    super('trial import rolled back');
  }
}

/**
 * The facts with the segments the document creates among the existing ones: with their new `ids`
 * once created, else (the rules' first look, before any write) as id 0.
 */
function withPlannedSegments(facts: ImportFacts, ids?: Map<string, number>): ImportFacts {
  const segments = new Map(facts.segments);
  for (const s of facts.segmentPlan.create) {
    segments.set(s.name, { id: ids?.get(s.name) ?? 0, project: s.project, constraints: s.constraints });
  }
  return { ...facts, segments };
}

/**
 * POST …/validate: what importing the document would run into, and, when it could be applied,
 * what it would change. The rules look first without writing or locking anything; a document the
 * caller could not import (errors, missing permissions) gets that answer, so any signed-in user
 * may validate without holding a lock. Otherwise the import is run and rolled back (it locks what
 * the import would), so "will be overwritten" lists only the existing flags that would change and
 * `changes` says how many events it would record. Changes nothing.
 */
export async function validateImport(
  deps: Deps,
  input: ImportInput,
  by: Principal,
): Promise<ImportValidation> {
  const facts = withPlannedSegments(await readFacts(deps.database.db, input));
  const first = (await checkImport(input, facts, by)).validation;
  if (first.errors.length > 0 || first.permissions.length > 0) return first;
  let applied: Applied;
  try {
    await transaction(deps.database.db, async (tx) => {
      throw new TrialDone(await apply(tx, input, by, deps.now));
    });
    throw new Error('unreachable: the trial always rolls back');
  } catch (e) {
    if (!(e instanceof TrialDone)) throw e;
    applied = e.applied;
  }
  const { validation, changes, changed } = applied;
  if (validation.errors.length > 0 || validation.permissions.length > 0) return validation;
  const changing = new Set(changed);
  const warnings = validation.warnings.flatMap((w) => {
    if (w.message !== OVERWRITTEN) return [w];
    const affectedItems = w.affectedItems.filter((f) => changing.has(f));
    return affectedItems.length > 0 ? [{ ...w, affectedItems }] : [];
  });
  return { ...validation, warnings, changes };
}

/**
 * POST …/import: applies the document in one transaction, all or nothing; any error refuses the
 * whole import (400, the same list validate gives), a missing permission too (403). Each imported
 * flag the import creates or changes gets a `feature-import` event after the events of its
 * changes (which stay the audit trail of what changed, as in Unleash), and `features-imported`
 * closes the list, only when something changed: importing the same document again changes
 * nothing and records nothing.
 */
export async function importDocument(deps: Deps, input: ImportInput, by: Principal): Promise<void> {
  const { project, environment } = input;
  await transaction(deps.database.db, async (tx) => {
    // An import changes the environment directly: refused where change requests are required.
    await gateDirectWrite(tx, by, project, environment);
    const { validation, changes, changed } = await apply(tx, input, by, deps.now);
    if (validation.errors.length > 0) throw refused(validation.errors);
    if (validation.permissions.length > 0) throw forbidden(input, validation);
    if (changes === 0) return;
    const who = { createdBy: by.name, createdByUserId: by.userId, project, environment };
    await appendEvents(tx, [
      ...changed.map((name) => ({
        ...who,
        type: 'feature-import',
        featureName: name,
        data: { name, project, environment },
      })),
      { ...who, type: 'features-imported', data: { project, environment } },
    ]);
  });
}
