import type { Deps } from '../../deps.js';
import { withCompileBudget } from '../../evaluation/index.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, type ErrorDetail, notFound } from '../../platform/http/errors.js';
import { createMissingContextFields } from '../context/index.js';
import { setParentsOfFlags } from '../dependencies/index.js';
import { appendEvent } from '../events/index.js';
import { lockProjectAndFlags, setLinksOfFlags, upsertFlags } from '../flags/index.js';
import { setFlagStrategies, setFlagsEnabled } from '../strategies/index.js';
import { createMissingTagTypes, setTagsOfFlags } from '../tags/index.js';
import { setFlagsEnvironmentVariants } from '../variants/index.js';
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
import { checkImport, type ImportFacts } from './import.validate.js';
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
  };
}

/** POST …/validate: what importing the document would run into. Changes nothing. */
export async function validateImport(
  deps: Deps,
  input: ImportInput,
  by: Principal,
): Promise<ImportValidation> {
  const facts = await readFacts(deps.database.db, input);
  return (await withCompileBudget(() => checkImport(input, facts, by))).validation;
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

/**
 * POST …/import: applies the document in one transaction, all or nothing. The project's row and
 * the flags' rows are locked first (in name order, the lock order), then the rules run on what
 * the database holds; any error refuses the whole import (400, the same list validate gives), a
 * missing permission too (403). Each owning slice then writes its part in batches and records an
 * event per change; `features-imported` closes the list, and only when something changed, so
 * importing the same document again changes nothing and records nothing.
 */
export async function importDocument(deps: Deps, input: ImportInput, by: Principal): Promise<void> {
  const { project, environment } = input;
  await transaction(deps.database.db, async (tx) => {
    await lockProjectAndFlags(tx, project, namesIn(input));
    const facts = await readFacts(tx, input);
    const { validation, plan } = await withCompileBudget(() => checkImport(input, facts, by));
    if (validation.errors.length > 0) throw refused(validation.errors);
    if (validation.permissions.length > 0) {
      const names = validation.permissions.flatMap((p) => p.affectedItems);
      throw new AppError(
        'NoAccessError',
        `You don't have the required permissions to perform this import in project "${project}" and environment "${environment}". You need: ${names.join(', ')}.`,
        names.map((message) => ({ message })),
      );
    }
    const where = { project, environment };
    let changes = 0;
    changes += await createMissingContextFields(tx, plan.contextFields, by);
    changes += await createMissingTagTypes(tx, plan.tagTypes, by);
    const production = facts.environmentType === 'production';
    const now = deps.now();
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
    if (changes === 0) return;
    await appendEvent(tx, {
      type: 'features-imported',
      createdBy: by.name,
      createdByUserId: by.userId,
      project,
      environment,
      data: { project, environment },
    });
  });
}
