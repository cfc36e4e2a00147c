import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { lockProjectAndFlags, upsertFlags } from '../flags/index.js';
import { setFlagStrategies, setFlagsEnabled } from '../strategies/index.js';
import { createMissingTagTypes, setTagsOfFlags } from '../tags/index.js';
import { setFlagsEnvironmentVariants } from '../variants/index.js';
import type { StateDocumentInput, StateImportQueryInput } from './state.schemas.js';
import { readImportFacts, readState } from './state.store.js';
import { checkState, namesIn } from './state.validate.js';

type Strategy = NonNullable<StateDocumentInput['featureStrategies']>[number];
type FlagEnvironment = NonNullable<StateDocumentInput['featureEnvironments']>[number];

/** The version the export writes (Unleash 5.x's state format). */
export const STATE_VERSION = 4;

/** GET /api/admin/state/export: every active flag with its configuration, in a fixed order. */
export async function exportState(deps: Deps): Promise<StateDocumentInput> {
  const s = await readState(deps.database.db);
  return {
    version: STATE_VERSION,
    environments: s.environments.map((e) => ({
      name: e.name,
      type: e.type,
      sortOrder: e.sort_order,
      enabled: e.enabled,
    })),
    projects: s.projects.map((p) => ({ id: p.id, name: p.name, description: p.description })),
    features: s.features.map((f) => ({
      name: f.name,
      project: f.project,
      type: f.type,
      description: f.description,
      stale: f.stale,
      impressionData: f.impression_data,
      archived: false,
    })),
    strategies: s.strategies.map((t) => ({ name: t.name, description: t.description })),
    featureStrategies: s.featureStrategies.map((r) => ({
      id: r.id,
      featureName: r.feature_name,
      projectId: r.project,
      environment: r.environment,
      strategyName: r.strategy_name,
      title: r.title,
      disabled: r.disabled,
      sortOrder: r.sort_order,
      parameters: r.parameters,
      constraints: r.constraints as Strategy['constraints'],
      variants: r.variants as Strategy['variants'],
    })),
    featureEnvironments: s.featureEnvironments.map((e) => ({
      featureName: e.feature_name,
      environment: e.environment,
      enabled: e.enabled,
      variants: e.variants as FlagEnvironment['variants'],
    })),
    tagTypes: s.tagTypes,
    tags: s.tags,
    featureTags: s.featureTags.map((t) => ({
      featureName: t.feature_name,
      tagType: t.tag_type,
      tagValue: t.tag_value,
    })),
  };
}

/** Unleash's query flag: `true` or a non-zero number. */
export function truthy(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) && n !== 0;
}

/**
 * POST /api/admin/state/import: applies the document in one transaction, all or nothing. The
 * projects' rows and their flags' rows are locked first (projects in id order, flags in name order),
 * then the rules run on what the database holds; any problem refuses the whole import (400 with
 * every problem in details). Each owning slice writes its part and records its events;
 * `state-imported` closes the list, only when something changed.
 */
export async function importState(
  deps: Deps,
  doc: StateDocumentInput,
  query: StateImportQueryInput,
  by: Principal,
): Promise<void> {
  if (truthy(query.drop, false)) {
    const message = 'drop is not supported: delete what should go through the admin API, then import.';
    throw new AppError('ValidationError', message, [{ path: '/querystring/drop', message }]);
  }
  const keep = truthy(query.keep, true);
  const names = namesIn(doc);
  await transaction(deps.database.db, async (tx) => {
    const byProject = new Map<string, string[]>();
    for (const f of doc.features ?? [])
      byProject.set(f.project, [...(byProject.get(f.project) ?? []), f.name]);
    for (const project of [...byProject.keys()].sort()) {
      await lockProjectAndFlags(tx, project, byProject.get(project) ?? []);
    }
    const facts = await readImportFacts(tx, names);
    const { problems, plan } = checkState(doc, facts, keep);
    if (problems.length > 0) {
      throw new AppError(
        'ValidationError',
        `The state import was refused and nothing was changed: ${problems.length} problem(s), listed in details.`,
        problems,
      );
    }
    const now = deps.now();
    let changes = await createMissingTagTypes(tx, plan.tagTypes, by);
    for (const [project, p] of [...plan.projects].sort(([a], [b]) => (a < b ? -1 : 1))) {
      changes += await upsertFlags(tx, project, p.flags, by, { tags: p.tags });
      changes += await setTagsOfFlags(tx, project, p.tags, by);
      for (const [environment, e] of p.environments) {
        const where = { project, environment };
        changes += await setFlagStrategies(tx, where, e.strategies, by);
        changes += await setFlagsEnvironmentVariants(tx, where, e.variants, by);
        changes += await setFlagsEnabled(tx, { ...where, production: e.production }, e.enabled, by, now);
      }
    }
    if (changes === 0) return;
    await appendEvent(tx, {
      type: 'state-imported',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: {
        version: doc.version,
        keep,
        flags: [...plan.projects.values()].reduce((n, p) => n + p.flags.length, 0),
      },
    });
  });
}
