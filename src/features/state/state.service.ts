import type { Deps } from '../../deps.js';
import { withCompileBudget } from '../../evaluation/index.js';
import { planForManyRows, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { mapInSlices, WorkSlices } from '../../platform/yielding.js';
import { importEnvironments } from '../environments/index.js';
import { appendEvent } from '../events/index.js';
import { lockProjectAndFlags, upsertFlags } from '../flags/index.js';
import { importProjects } from '../projects/index.js';
import { importSegments } from '../segments/index.js';
import { setFlagStrategies, setFlagsEnabled } from '../strategies/index.js';
import { importStrategyTypes } from '../strategy-definitions/index.js';
import { createMissingTagTypes, importTags, setTagsOfFlags } from '../tags/index.js';
import { setFlagsEnvironmentVariants } from '../variants/index.js';
import { dropListedKinds } from './state.drop.js';
import type { StateDocumentInput, StateImportQueryInput } from './state.schemas.js';
import { readImportFacts, readState } from './state.store.js';
import { checkSegments, checkState, environmentsOfProjects, namesIn } from './state.validate.js';

type Strategy = NonNullable<StateDocumentInput['featureStrategies']>[number];
type FlagEnvironment = NonNullable<StateDocumentInput['featureEnvironments']>[number];

/** The version the export writes (Unleash 5.x's state format). */
export const STATE_VERSION = 4;

/** GET /api/admin/state/export: every active flag with its configuration, in a fixed order. */
export async function exportState(deps: Deps): Promise<StateDocumentInput> {
  // One snapshot for every read; whole tables, so planned for many rows whatever the statistics say.
  const s = await transaction(
    deps.database.db,
    async (tx) => {
      await planForManyRows(tx);
      return readState(tx);
    },
    { isolationLevel: 'repeatable read' },
  );
  // Thousands of rows: mapped in slices, so other requests run in between.
  const slices = new WorkSlices();
  return {
    version: STATE_VERSION,
    environments: s.environments.map((e) => ({
      name: e.name,
      type: e.type,
      sortOrder: e.sort_order,
      enabled: e.enabled,
    })),
    projects: s.projects.map((p) => ({ id: p.id, name: p.name, description: p.description })),
    features: await mapInSlices(
      s.features,
      (f) => ({
        name: f.name,
        project: f.project,
        type: f.type,
        description: f.description,
        stale: f.stale,
        impressionData: f.impression_data,
        archived: false,
      }),
      slices,
    ),
    strategies: s.strategies.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      editable: !t.built_in,
      deprecated: t.deprecated,
      parameters: t.parameters,
    })),
    featureStrategies: await mapInSlices(
      s.featureStrategies,
      (r) => ({
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
      }),
      slices,
    ),
    featureEnvironments: await mapInSlices(
      s.featureEnvironments,
      (e) => ({
        featureName: e.feature_name,
        environment: e.environment,
        enabled: e.enabled,
        variants: e.variants as FlagEnvironment['variants'],
      }),
      slices,
    ),
    tagTypes: s.tagTypes,
    tags: s.tags,
    featureTags: await mapInSlices(
      s.featureTags,
      (t) => ({
        featureName: t.feature_name,
        tagType: t.tag_type,
        tagValue: t.tag_value,
      }),
      slices,
    ),
    segments: s.segments.map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      project: g.project,
      constraints: g.constraints as NonNullable<StateDocumentInput['segments']>[number]['constraints'],
    })),
    featureStrategySegments: await mapInSlices(
      s.featureStrategySegments,
      (l) => ({
        featureStrategyId: l.feature_strategy_id,
        segmentId: l.segment_id,
      }),
      slices,
    ),
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
 * POST /api/admin/state/import: applies the document in one transaction, all or nothing (Unleash
 * 5.x's order). With `drop`, what is here of each kind the document lists goes first
 * (state.drop.ts). Then the definitions: environments, projects, custom strategy types, each
 * created when missing and, without `keep` (or with `drop`), updated, after the projects' rows and
 * their flags' rows are locked (projects in id order, flags in name order). Then segments are
 * imported and the rules run on what the database holds; any problem refuses the whole import (400 with
 * every problem in details) and the transaction leaves no trace. Each owning slice writes its part
 * and records its events; `state-imported` closes the list, only when something changed.
 */
export async function importState(
  deps: Deps,
  doc: StateDocumentInput,
  query: StateImportQueryInput,
  by: Principal,
): Promise<void> {
  const keep = truthy(query.keep, true);
  const drop = truthy(query.drop, false);
  // After a drop nothing of a listed kind is left to keep, but a survivor (a listed environment,
  // the `default` project) becomes what the document says.
  const keepDefinitions = keep && !drop;
  const names = namesIn(doc);
  await transaction(deps.database.db, async (tx) => {
    const now = deps.now();
    let changes = drop ? await dropListedKinds(tx, doc, by) : 0;
    // The lock order: each project's row (listed or holding a listed flag; id order), then its
    // listed flags' rows (name order). Projects created below are nobody else's yet.
    const byProject = new Map<string, string[]>((doc.projects ?? []).map((p) => [p.id, []]));
    for (const f of doc.features ?? []) {
      const names = byProject.get(f.project) ?? [];
      names.push(f.name);
      byProject.set(f.project, names);
    }
    for (const project of [...byProject.keys()].sort()) {
      await lockProjectAndFlags(tx, project, byProject.get(project) ?? []);
    }
    changes += await importEnvironments(
      tx,
      (doc.environments ?? []).map((e) => ({
        name: e.name,
        type: e.type,
        sortOrder: e.sortOrder ?? 9999,
        enabled: e.enabled ?? true,
      })),
      keepDefinitions,
      by,
    );
    changes += await importProjects(
      tx,
      (doc.projects ?? []).map((p) => ({ id: p.id, name: p.name, description: p.description ?? null })),
      environmentsOfProjects(doc),
      keepDefinitions,
      by,
      now,
    );
    changes += await importStrategyTypes(tx, customStrategyTypes(doc), keepDefinitions, by);

    const facts = await readImportFacts(tx, names);
    const checked = checkSegments(doc, facts.projects);
    const segments = await importSegments(tx, checked.segments, keepDefinitions, by);
    changes += segments.events;
    const segmentIds = new Map<number, number>();
    for (const s of doc.segments ?? []) {
      const local = segments.ids.get(s.name);
      if (s.id !== undefined && local !== undefined) segmentIds.set(s.id, local);
    }
    const { problems, plan } = withCompileBudget(() => checkState(doc, facts, keep, segmentIds));
    problems.unshift(...checked.problems);
    if (problems.length > 0) {
      throw new AppError(
        'ValidationError',
        `The state import was refused and nothing was changed: ${problems.length} problem(s), listed in details.`,
        problems,
      );
    }
    changes += await createMissingTagTypes(tx, plan.tagTypes, by);
    changes += await importTags(
      tx,
      (doc.tags ?? []).map((t) => ({ type: t.type, value: t.value })),
      by,
    );
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
        drop,
        flags: [...plan.projects.values()].reduce((n, p) => n + p.flags.length, 0),
      },
    });
  });
}

/** The document's custom strategy types in stored form (built-in ones, `editable: false`, skipped). */
function customStrategyTypes(doc: StateDocumentInput) {
  return (doc.strategies ?? [])
    .filter((t) => t.editable !== false)
    .map((t) => ({
      name: t.name,
      title: t.title ?? t.displayName ?? null,
      description: t.description ?? null,
      deprecated: t.deprecated ?? false,
      parameters: (t.parameters ?? []).map((p) => ({
        name: p.name,
        type: p.type,
        description: p.description ?? '',
        required: p.required ?? false,
      })),
    }));
}
