import type { ErrorDetail } from '../../platform/http/errors.js';
import type { BatchFlag } from '../flags/index.js';
import {
  type ConstraintInput,
  constraintsProblems,
  normaliseVariantWeights,
  type StrategyDraftWithId,
  storedConstraint,
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
  return {
    projects: [...new Set([...(doc.projects ?? []).map((p) => p.id), ...features.map((f) => f.project)])],
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
  };
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
): { problems: ErrorDetail[]; plan: StatePlan } {
  const problems: ErrorDetail[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `/body/${path}`, message });

  (doc.environments ?? []).forEach((e, i) => {
    if (!facts.environments.has(e.name)) {
      problem(`environments/${i}`, `The environment "${e.name}" does not exist here; create it first.`);
    }
  });
  (doc.projects ?? []).forEach((p, i) => {
    if (!facts.projects.has(p.id))
      problem(`projects/${i}`, `The project "${p.id}" does not exist here; create it first.`);
  });
  (doc.strategies ?? []).forEach((s, i) => {
    if (!facts.strategyTypes.has(s.name)) {
      problem(`strategies/${i}`, `The strategy type "${s.name}" does not exist here; create it first.`);
    }
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
      problem(`features/${i}/project`, `The project "${f.project}" of flag "${f.name}" does not exist here.`);
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
      problem(`${path}/environment`, `The environment "${environment}" does not exist here.`);
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

  const strategyIds = new Set<string>();
  (doc.featureStrategies ?? []).forEach((s, i) => {
    const path = `featureStrategies/${i}`;
    if (s.id !== undefined) {
      if (strategyIds.has(s.id)) problem(`${path}/id`, `The strategy id "${s.id}" is listed more than once.`);
      strategyIds.add(s.id);
    }
    if (!facts.strategyTypes.has(s.strategyName)) {
      problem(`${path}/strategyName`, `There is no strategy type named "${s.strategyName}".`);
    }
    problems.push(
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
      variants: normaliseVariantWeights(s.variants ?? []).map((v) => ({
        name: v.name,
        weight: v.weight,
        weightType: v.weightType,
        stickiness: v.stickiness,
        ...(v.payload && { payload: v.payload }),
      })),
      segments: [],
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
      normaliseVariantWeights(variants).map((v) => ({
        name: v.name,
        weight: v.weight,
        weightType: v.weightType ?? 'variable',
        stickiness: v.stickiness ?? 'default',
        ...(v.payload && { payload: v.payload }),
        ...(v.overrides && { overrides: v.overrides }),
      })),
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
