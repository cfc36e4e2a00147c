import type { ErrorDetail } from '../../platform/http/errors.js';
import type { BatchFlag } from '../flags/index.js';
import type { ImportedSegment } from '../segments/index.js';
import {
  type ConstraintInput,
  constraintsProblems,
  normaliseVariantWeights,
  rolloutProblems,
  type StrategyDraftWithId,
  storedConstraint,
  storedVariant,
  variantWeightProblems,
} from '../strategies/index.js';
import type { StateDocumentInput } from './state.schemas.js';
import type { StateFacts } from './state.store.js';

type StoredVariant = NonNullable<
  NonNullable<StateDocumentInput['featureEnvironments']>[number]['variants']
>[number];

/** What an accepted document writes, per project, then per environment of the project. */
export interface StatePlan {
  tagTypes: { name: string; description: string | null; icon: string | null; color: string | null }[];
  projects: Map<
    string,
    {
      flags: BatchFlag[];
      tags: Map<string, { type: string; value: string }[]>;
      environments: Map<
        string,
        {
          production: boolean;
          strategies: Map<string, StrategyDraftWithId[]>;
          enabled: Map<string, boolean>;
          variants: Map<string, StoredVariant[]>;
        }
      >;
    }
  >;
}

/** The names a document uses, for readImportFacts. */
export function namesIn(doc: StateDocumentInput) {
  const features = doc.features ?? [];
  const defined = new Set((doc.segments ?? []).map((s) => s.id));
  return {
    projects: [
      ...new Set([
        ...(doc.projects ?? []).map((p) => p.id),
        ...features.map((f) => f.project),
        ...(doc.segments ?? []).flatMap((s) => (s.project ? [s.project] : [])),
      ]),
    ],
    environments: [
      ...new Set([
        ...(doc.environments ?? []).map((e) => e.name),
        ...(doc.featureStrategies ?? []).map((s) => s.environment),
        ...(doc.featureEnvironments ?? []).map((e) => e.environment),
      ]),
    ],
    strategyTypes: [
      ...new Set([
        ...(doc.strategies ?? []).map((s) => s.name),
        ...(doc.featureStrategies ?? []).map((s) => s.strategyName),
      ]),
    ],
    flags: features.map((f) => f.name),
    tagTypes: [
      ...new Set([...(doc.tags ?? []).map((t) => t.type), ...(doc.featureTags ?? []).map((t) => t.tagType)]),
    ],
    flagTypes: [...new Set(features.map((f) => f.type ?? 'release'))],
    segmentIds: [...referencedSegmentIds(doc)].filter((id) => !defined.has(id)),
  };
}

function referencedSegmentIds(doc: StateDocumentInput): Set<number> {
  return new Set([
    ...(doc.featureStrategies ?? []).flatMap((s) => s.segments ?? []),
    ...(doc.featureStrategySegments ?? []).map((l) => l.segmentId),
  ]);
}

/**
 * The environments each listed project's flags use in the document (featureEnvironments and
 * featureStrategies): what a project created by the import gets.
 */
export function environmentsOfProjects(doc: StateDocumentInput): Map<string, string[]> {
  const projectOf = new Map((doc.features ?? []).filter((f) => !f.archived).map((f) => [f.name, f.project]));
  const used = new Map<string, Set<string>>();
  for (const item of [...(doc.featureEnvironments ?? []), ...(doc.featureStrategies ?? [])]) {
    const project = projectOf.get(item.featureName);
    if (project === undefined) continue;
    const set = used.get(project) ?? new Set<string>();
    set.add(item.environment);
    used.set(project, set);
  }
  return new Map([...used].map(([project, envs]) => [project, [...envs]]));
}

/**
 * Checks the document's segments (constraints, project, names and ids used once) and returns the
 * ones to import, in stored form; those with a problem are left out (the import fails anyway).
 */
export function checkSegments(
  doc: StateDocumentInput,
  projects: Set<string>,
): { problems: ErrorDetail[]; segments: ImportedSegment[] } {
  const problems: ErrorDetail[] = [];
  const segments: ImportedSegment[] = [];
  const names = new Set<string>();
  const ids = new Set<number>();
  (doc.segments ?? []).forEach((s, i) => {
    const path = `/body/segments/${i}`;
    const found = constraintsProblems(s.constraints as ConstraintInput[], `${path}/constraints`);
    if (names.has(s.name))
      found.push({ path: `${path}/name`, message: `The segment "${s.name}" is listed more than once.` });
    if (s.id !== undefined && ids.has(s.id)) {
      found.push({ path: `${path}/id`, message: `The segment id ${s.id} is listed more than once.` });
    }
    if (s.project && !projects.has(s.project)) {
      found.push({
        path: `${path}/project`,
        message: `The project "${s.project}" of segment "${s.name}" does not exist here and is not in projects.`,
      });
    }
    names.add(s.name);
    if (s.id !== undefined) ids.add(s.id);
    problems.push(...found);
    if (found.length > 0) return;
    segments.push({
      id: s.id,
      name: s.name,
      description: s.description || null,
      project: s.project || null,
      constraints: (s.constraints as ConstraintInput[]).map(storedConstraint),
    });
  });
  return { problems, segments };
}

/**
 * Checks the whole document against what the database holds and plans the writes. Every problem
 * is listed (`path` is the JSON pointer of the item, as body validation reports it); none means
 * the plan can be applied. With `keep`, flags that exist here are left out of the plan.
 */
export function checkState(
  doc: StateDocumentInput,
  facts: StateFacts,
  keep: boolean,
  segmentIds: Map<number, number>,
): { problems: ErrorDetail[]; plan: StatePlan } {
  const problems: ErrorDetail[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `/body/${path}`, message });

  // Listed environments, projects and strategy types were imported before: a listed project that
  // is still not active is archived here.
  (doc.projects ?? []).forEach((p, i) => {
    if (!facts.projects.has(p.id))
      problem(`projects/${i}`, `The project "${p.id}" is archived here; revive it first.`);
  });
  const tagTypes = new Set([...facts.tagTypes, ...(doc.tagTypes ?? []).map((t) => t.name)]);
  (doc.tags ?? []).forEach((t, i) => {
    if (!tagTypes.has(t.type))
      problem(`tags/${i}/type`, `There is no tag type "${t.type}" here or in tagTypes.`);
  });

  // Flags: the ones this import writes, by name.
  const projectEnvs = new Map<string, Set<string>>();
  for (const pe of facts.projectEnvironments) {
    const set = projectEnvs.get(pe.project) ?? new Set<string>();
    set.add(pe.environment);
    projectEnvs.set(pe.project, set);
  }
  const plan: StatePlan = {
    tagTypes: (doc.tagTypes ?? []).map((t) => ({
      name: t.name,
      description: t.description ?? null,
      icon: t.icon ?? null,
      color: t.color ?? null,
    })),
    projects: new Map(),
  };
  const listed = new Map<string, { project: string; written: boolean }>();
  (doc.features ?? []).forEach((f, i) => {
    if (listed.has(f.name)) {
      problem(`features/${i}/name`, `The flag "${f.name}" is listed more than once.`);
      return;
    }
    const existing = facts.flags.get(f.name);
    let written = !f.archived && !(keep && existing);
    listed.set(f.name, { project: f.project, written });
    if (!facts.projects.has(f.project)) {
      problem(
        `features/${i}/project`,
        `The project "${f.project}" of flag "${f.name}" does not exist here and is not in projects.`,
      );
      written = false;
    }
    if (!facts.flagTypes.has(f.type ?? 'release')) {
      problem(`features/${i}/type`, `There is no flag type "${f.type}".`);
    }
    if (written && existing && (existing.archived || existing.project !== f.project)) {
      problem(
        `features/${i}`,
        `The flag "${f.name}" exists here ${existing.archived ? 'in the archive' : `in project "${existing.project}"`}.`,
      );
    }
    if (!written) return;
    let entry = plan.projects.get(f.project);
    if (!entry) {
      entry = { flags: [], tags: new Map(), environments: new Map() };
      for (const environment of projectEnvs.get(f.project) ?? []) {
        entry.environments.set(environment, {
          production: facts.environments.get(environment) === 'production',
          strategies: new Map(),
          enabled: new Map(),
          variants: new Map(),
        });
      }
      plan.projects.set(f.project, entry);
    }
    entry.flags.push({
      name: f.name,
      type: f.type ?? 'release',
      description: f.description ?? null,
      stale: f.stale ?? false,
      impressionData: f.impressionData ?? false,
    });
    entry.tags.set(f.name, []);
    for (const env of entry.environments.values()) env.strategies.set(f.name, []);
  });

  /** The plan of a flag in an environment, or undefined after reporting why there is none. */
  const target = (path: string, flag: string, environment: string) => {
    const entry = listed.get(flag);
    if (!entry) {
      problem(path, `The flag "${flag}" is not in features.`);
      return undefined;
    }
    if (!facts.environments.has(environment)) {
      problem(
        `${path}/environment`,
        `The environment "${environment}" does not exist here and is not in environments.`,
      );
      return undefined;
    }
    if (!projectEnvs.get(entry.project)?.has(environment)) {
      problem(
        `${path}/environment`,
        `The project "${entry.project}" does not have the environment "${environment}".`,
      );
      return undefined;
    }
    if (!entry.written) return undefined;
    return plan.projects.get(entry.project)?.environments.get(environment);
  };

  // featureStrategySegments: the segments of each strategy id, each link's strategy listed.
  const listedIds = new Set((doc.featureStrategies ?? []).flatMap((s) => (s.id === undefined ? [] : [s.id])));
  const definedSegments = new Set((doc.segments ?? []).flatMap((s) => (s.id === undefined ? [] : [s.id])));
  const linked = new Map<string, number[]>();
  (doc.featureStrategySegments ?? []).forEach((l, i) => {
    if (!listedIds.has(l.featureStrategyId)) {
      problem(
        `featureStrategySegments/${i}/featureStrategyId`,
        `There is no strategy with id "${l.featureStrategyId}" in featureStrategies.`,
      );
      return;
    }
    linked.set(l.featureStrategyId, [...(linked.get(l.featureStrategyId) ?? []), l.segmentId]);
  });

  const strategyIds = new Set<string>();
  (doc.featureStrategies ?? []).forEach((s, i) => {
    const path = `featureStrategies/${i}`;
    if (s.id !== undefined) {
      if (strategyIds.has(s.id)) problem(`${path}/id`, `The strategy id "${s.id}" is listed more than once.`);
      strategyIds.add(s.id);
    }
    if (!facts.strategyTypes.has(s.strategyName)) {
      problem(
        `${path}/strategyName`,
        `There is no strategy type named "${s.strategyName}" here or in strategies.`,
      );
    }
    const segments: number[] = [];
    for (const id of [...(s.segments ?? []), ...(s.id === undefined ? [] : (linked.get(s.id) ?? []))]) {
      const local = segmentIds.get(id) ?? (facts.segmentIds.has(id) ? id : undefined);
      if (local === undefined) {
        if (!definedSegments.has(id))
          problem(`${path}/segments`, `There is no segment with id ${id} here or in segments.`);
      } else if (!segments.includes(local)) segments.push(local);
    }
    problems.push(
      ...rolloutProblems(s.strategyName, s.parameters, `/body/${path}`),
      ...constraintsProblems(s.constraints as ConstraintInput[] | undefined, `/body/${path}/constraints`),
    );
    problems.push(...variantWeightProblems(s.variants ?? [], `/body/${path}/variants`));
    const env = target(path, s.featureName, s.environment);
    const strategies = env?.strategies.get(s.featureName);
    if (!strategies) return;
    strategies.push({
      id: s.id,
      name: s.strategyName,
      title: s.title ?? null,
      disabled: s.disabled ?? false,
      sortOrder: s.sortOrder ?? strategies.length,
      parameters: s.parameters ?? {},
      constraints: (s.constraints ?? []).map((c) => storedConstraint(c as ConstraintInput)),
      variants: normaliseVariantWeights(s.variants ?? []).map((v) => storedVariant(v, false)),
      segments,
    });
  });

  const seenEnvironments = new Set<string>();
  (doc.featureEnvironments ?? []).forEach((e, i) => {
    const path = `featureEnvironments/${i}`;
    const key = `${e.featureName}\u0000${e.environment}`;
    if (seenEnvironments.has(key)) {
      problem(
        path,
        `The flag "${e.featureName}" is listed more than once in environment "${e.environment}".`,
      );
    }
    seenEnvironments.add(key);
    const variants = e.variants ?? [];
    problems.push(...variantWeightProblems(variants, `/body/${path}/variants`));
    const env = target(path, e.featureName, e.environment);
    if (!env) return;
    env.enabled.set(e.featureName, e.enabled);
    env.variants.set(
      e.featureName,
      normaliseVariantWeights(variants).map((v) => storedVariant(v, true)),
    );
  });

  (doc.featureTags ?? []).forEach((t, i) => {
    const path = `featureTags/${i}`;
    if (!tagTypes.has(t.tagType))
      problem(`${path}/tagType`, `There is no tag type "${t.tagType}" here or in tagTypes.`);
    const entry = listed.get(t.featureName);
    if (!entry) {
      problem(path, `The flag "${t.featureName}" is not in features.`);
      return;
    }
    const tags = entry.written ? plan.projects.get(entry.project)?.tags.get(t.featureName) : undefined;
    tags?.push({ type: t.tagType, value: t.tagValue });
  });

  return { problems, plan };
}
