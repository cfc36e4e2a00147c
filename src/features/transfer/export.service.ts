import type { Deps } from '../../deps.js';
import { type Db, planForManyRows, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, notFound } from '../../platform/http/errors.js';
import { mapInSlices, WorkSlices } from '../../platform/yielding.js';
import { appendEvent } from '../events/index.js';
import {
  contextFieldsByName,
  environmentExists,
  flagConfiguration,
  projectExists,
  type Selection,
  segmentsById,
  selectFlags,
  tagTypesByName,
} from './export.store.js';
import type { ExportQuery, ExportResult } from './transfer.schemas.js';

/** From this many selected flags on, the configuration is read with set-based joins (planForManyRows). */
const MANY_FLAGS = 500;

type Strategy = ExportResult['featureStrategies'][number];
type FlagVariant = ExportResult['featureEnvironments'][number]['variants'][number];

/**
 * Which flags a query selects, in Unleash's precedence: `tag`, then a non-empty `features` list,
 * then `project` (its active flags), then every active flag. An empty `features` list therefore
 * means "no names": the project's flags if a project is given, else all active flags.
 */
export function selectionOf(query: ExportQuery): Selection {
  if (query.tag !== undefined) return { kind: 'tag', tag: query.tag };
  if (query.features && query.features.length > 0) return { kind: 'names', names: query.features };
  if (query.project !== undefined) return { kind: 'project', project: query.project };
  return { kind: 'all' };
}

/** The context fields a strategy or a flag variant refers to (constraints, stickiness, overrides). */
function contextNames(strategies: Strategy[], variants: FlagVariant[][]): string[] {
  const names = new Set<string>();
  for (const s of strategies) {
    for (const c of s.constraints) names.add(c.contextName);
    if (s.parameters.stickiness) names.add(s.parameters.stickiness);
    for (const v of s.variants) names.add(v.stickiness);
  }
  for (const list of variants) {
    for (const v of list) {
      if (v.stickiness) names.add(v.stickiness);
      for (const o of v.overrides ?? []) names.add(o.contextName);
    }
  }
  return [...names];
}

/**
 * The flags the query selects with their configuration in one environment (ExportResultSchema),
 * read with one query per kind of row whatever the number of flags; records `features-exported`.
 * 404 for an unknown environment, or an unknown project when the selection is by project.
 */
export async function exportFlags(deps: Deps, query: ExportQuery, by: Principal): Promise<ExportResult> {
  if (query.tag === undefined && query.features === undefined && query.project === undefined) {
    throw invalidField('/body', 'Select what to export: give `features` (names), `tag` or `project`.');
  }
  // One snapshot for every read, so the parts of the document agree under concurrent writes.
  return transaction(deps.database.db, (db) => readExport(db, query, by), {
    isolationLevel: 'repeatable read',
  });
}

async function readExport(db: Db, query: ExportQuery, by: Principal): Promise<ExportResult> {
  if (!(await environmentExists(db, query.environment))) {
    throw notFound(`The environment "${query.environment}" does not exist.`);
  }
  const selection = selectionOf(query);
  if (selection.kind === 'project' && !(await projectExists(db, selection.project))) {
    throw notFound(`The project "${selection.project}" does not exist.`);
  }
  const flags = await selectFlags(db, selection);
  if (flags.length >= MANY_FLAGS) await planForManyRows(db);
  const configuration = await flagConfiguration(db, selection, query.environment);

  // Thousands of rows: mapped in slices, so other requests run in between.
  const slices = new WorkSlices();
  const featureStrategies: Strategy[] = await mapInSlices(
    configuration.strategies,
    (s) => ({
      name: s.strategy_name,
      id: s.id,
      featureName: s.feature_name,
      title: s.title,
      parameters: s.parameters,
      constraints: s.constraints as Strategy['constraints'],
      variants: s.variants as Strategy['variants'],
      sortOrder: s.sort_order,
      disabled: s.disabled,
      segments: (s.segments ?? []).map(Number),
    }),
    slices,
  );
  const featureEnvironments = await mapInSlices(
    configuration.environments,
    (e) => ({
      enabled: e.enabled,
      featureName: e.feature_name,
      environment: query.environment,
      variants: e.variants as FlagVariant[],
      name: e.feature_name,
    }),
    slices,
  );
  const segmentIds = [...new Set(featureStrategies.flatMap((s) => s.segments))];
  const tagTypeNames = [...new Set(configuration.tags.map((t) => t.tag_type))];
  const segments = await segmentsById(db, segmentIds);
  const contextFields = await contextFieldsByName(
    db,
    contextNames(
      featureStrategies,
      featureEnvironments.map((e) => e.variants),
    ),
  );
  const tagTypes = await tagTypesByName(db, tagTypeNames);
  const parents = new Map<string, ExportResult['dependencies'][number]['dependencies']>();
  for (const d of configuration.dependencies) {
    const list = parents.get(d.child) ?? [];
    list.push({ feature: d.parent, enabled: d.enabled, ...(d.variants ? { variants: d.variants } : {}) });
    parents.set(d.child, list);
  }
  const links = new Map<string, ExportResult['links'][number]['links']>();
  for (const l of configuration.links) {
    const list = links.get(l.feature_name) ?? [];
    list.push({ url: l.url, title: l.title });
    links.set(l.feature_name, list);
  }

  await appendEvent(db, {
    type: 'features-exported',
    createdBy: by.name,
    createdByUserId: by.userId,
    environment: query.environment,
    ...(selection.kind === 'project' && { project: selection.project }),
    data: { ...selection, environment: query.environment, exported: flags.length },
  });
  const features = await mapInSlices(
    flags,
    (f) => ({
      name: f.name,
      description: f.description,
      type: f.type,
      project: f.project,
      stale: f.stale,
      impressionData: f.impression_data,
      archived: f.archived,
    }),
    slices,
  );
  const featureTags = await mapInSlices(
    configuration.tags,
    (t) => ({
      featureName: t.feature_name,
      tagType: t.tag_type,
      tagValue: t.tag_value,
    }),
    slices,
  );
  return {
    features,
    featureStrategies,
    featureEnvironments,
    contextFields: contextFields.map((c) => ({
      name: c.name,
      description: c.description,
      stickiness: c.stickiness,
      sortOrder: c.sort_order,
      legalValues: c.legal_values,
      ...(c.project !== null && { project: c.project }),
    })),
    featureTags,
    // Definitions let an import create a missing segment; Unleash's form is names and ids only.
    segments: segments.map((s) =>
      query.segmentDefinitions === false
        ? { id: s.id, name: s.name }
        : {
            id: s.id,
            name: s.name,
            description: s.description,
            project: s.project,
            constraints: s.constraints as Strategy['constraints'],
          },
    ),
    tagTypes,
    dependencies: [...parents].map(([feature, dependencies]) => ({ feature, dependencies })),
    links: [...links].map(([feature, list]) => ({ feature, links: list })),
  };
}
