import { fullMatch, newCompileBudget, withCompileBudget } from '../../evaluation/index.js';
import { allows, type Permission, type Principal } from '../../platform/http/auth.js';
import { WorkSlices } from '../../platform/yielding.js';
import type { WantedParent } from '../dependencies/index.js';
import { type BatchFlag, type BatchLink, linkUrl } from '../flags/index.js';
import {
  constraintsProblems,
  normaliseVariantWeights,
  rolloutProblems,
  type StrategyDraftWithId,
  storedConstraint,
  storedVariant,
  variantWeightProblems,
} from '../strategies/index.js';
import type { StoredVariantOf } from '../variants/index.js';
import type { SegmentPlan } from './import.segments.js';
import type { ExistingFlag, TargetProject, TargetSegment } from './import.store.js';
import type { ImportInput, ImportItem, ImportValidation } from './transfer.schemas.js';

/** What the database says about everything a document names (read by import.service.ts). */
export interface ImportFacts {
  project: TargetProject;
  environmentType: string;
  flags: Map<string, ExistingFlag>;
  /** Strategy type → built in. */
  strategyTypes: Map<string, boolean>;
  contextFields: Map<string, { legalValues: string[]; project: string | null }>;
  /** By name, including the segments this import creates (`segmentPlan.create`). */
  segments: Map<string, TargetSegment>;
  segmentPlan: SegmentPlan;
  tagTypes: Set<string>;
  /** Flags with at least one strategy in the target environment. */
  withStrategies: Set<string>;
  /** Dependencies with a flag of the document at either end. */
  dependencies: { parent: string; child: string }[];
}

type Variant = NonNullable<ImportInput['data']['featureStrategies'][number]['variants']>[number];

/** What an import writes, each part for the owning slice's batch function. */
export interface ImportPlan {
  flags: BatchFlag[];
  contextFields: {
    name: string;
    description: string | null;
    stickiness: boolean;
    sortOrder: number;
    legalValues: { value: string; description?: string }[];
    project: string | null;
  }[];
  tagTypes: { name: string; description: string | null; icon: string | null; color: string | null }[];
  tags: Map<string, { type: string; value: string }[]>;
  variants: Map<string, StoredVariant[]>;
  enabled: Map<string, boolean>;
  strategies: Map<string, StrategyDraftWithId[]>;
  parents: Map<string, WantedParent[]>;
  /** Absent when the document has no `links`: the flags keep theirs. */
  links: Map<string, BatchLink[]> | undefined;
}

type StoredVariant = StoredVariantOf<Variant>;

/** Display names of the permissions an import may need, as Unleash shows them. */
const PERMISSION_NAMES: Partial<Record<Permission, string>> = {
  UPDATE_FEATURE: 'Update feature flags',
  CREATE_FEATURE: 'Create feature flags',
  CREATE_TAG_TYPE: 'Create tag types',
  CREATE_CONTEXT_FIELD: 'Create context fields',
  CREATE_SEGMENT: 'Create segments',
  DELETE_FEATURE_STRATEGY: 'Delete activation strategies',
  CREATE_FEATURE_STRATEGY: 'Create activation strategies',
  UPDATE_FEATURE_ENVIRONMENT: 'Enable/disable flags in environments',
  UPDATE_FEATURE_ENVIRONMENT_VARIANTS: 'Update variants',
  UPDATE_FEATURE_DEPENDENCY: 'Update feature dependencies',
};

/** The warning listing existing flags the import changes (import.service.ts keeps only those it changes). */
export const OVERWRITTEN = 'The following features already exist in this project and will be overwritten:';

/** As the link routes (flags/links.service.ts): at most 10 links per flag. */
const MAX_LINKS = 10;

const sorted = (items: Iterable<string>) => [...new Set(items)].sort();

function payloadProblem(v: Variant): string | undefined {
  if (v.payload?.type === 'json') {
    try {
      JSON.parse(v.payload.value);
    } catch {
      return `variant "${v.name}": a json payload must be valid JSON`;
    }
  }
  if (
    v.payload?.type === 'number' &&
    (v.payload.value.trim() === '' || Number.isNaN(Number(v.payload.value)))
  ) {
    return `variant "${v.name}": a number payload must be a number`;
  }
  return undefined;
}

/** Checks a variant list as the variant routes do; problems as text, else the list as stored. */
function variantList(
  variants: Variant[],
  withOverrides: boolean,
): { problems: string[]; stored: StoredVariant[] } {
  if (variants.length === 0) return { problems: [], stored: [] };
  const problems = [
    ...variantWeightProblems(variants, '').map((p) => p.message),
    ...variants.flatMap((v) => payloadProblem(v) ?? []),
  ];
  if (problems.length > 0) return { problems, stored: [] };
  const clean = variants.map((v) => storedVariant(v, withOverrides));
  return { problems: [], stored: normaliseVariantWeights(clean) };
}

/** What creating a flexibleRollout fills in: a blank groupId is the flag, a blank stickiness the project's. */
function completeParameters(
  name: string,
  parameters: Record<string, string>,
  flag: string,
  stickiness: string,
) {
  if (name !== 'flexibleRollout') return { ...parameters };
  return {
    ...parameters,
    groupId: parameters.groupId?.trim() ? parameters.groupId : flag,
    stickiness: parameters.stickiness?.trim() ? parameters.stickiness : stickiness,
  };
}

/**
 * The rules of an import (docs/api.md, "Export and import"): everything validation reports and,
 * when nothing is wrong, what the import writes. Pure: the facts come from the database, read once
 * for the whole document. Errors are listed in Unleash's order, then the checks Unleash does not
 * make (a document that is not an export, invalid constraints or variants, dependency rules).
 * The loops over a document's thousands of entries yield to the event loop every 10 ms
 * (platform/yielding.ts), so other requests are served meanwhile.
 */
export async function checkImport(
  input: ImportInput,
  facts: ImportFacts,
  by: Principal,
): Promise<{ validation: ImportValidation; plan: ImportPlan }> {
  const { data, project, environment } = input;
  const slices = new WorkSlices();
  const budget = newCompileBudget();
  const errors: ImportItem[] = [];
  const warnings: ImportItem[] = [];
  const add = (into: ImportItem[], message: string, items: Iterable<string>, keepOrder = false) => {
    const affectedItems = keepOrder ? [...items] : sorted(items);
    if (affectedItems.length > 0) into.push({ message, affectedItems });
  };

  // Which flags the document imports.
  const docNames = new Set<string>();
  const duplicates = new Set<string>();
  const firsts: ImportInput['data']['features'] = [];
  for (const f of data.features) {
    if (docNames.has(f.name)) duplicates.add(f.name);
    else firsts.push(f);
    docNames.add(f.name);
  }
  const existing = (name: string) => facts.flags.get(name);
  const elsewhere = (name: string) => {
    const e = existing(name);
    return e !== undefined && e.project !== project;
  };
  const inOtherProject = firsts.filter((f) => elsewhere(f.name));
  const archivedInDoc = firsts.filter((f) => f.archived === true && !elsewhere(f.name));
  const archivedHere = firsts.filter(
    (f) => f.archived !== true && !elsewhere(f.name) && existing(f.name)?.archived,
  );
  const imported = firsts.filter(
    (f) => f.archived !== true && !elsewhere(f.name) && !existing(f.name)?.archived,
  );
  const importedNames = new Set(imported.map((f) => f.name));
  const isNew = (name: string) => existing(name) === undefined;
  const newFlags = imported.filter((f) => isNew(f.name));

  // Entries that name flags the features list does not have: not an export.
  const strays: string[] = [];
  data.featureStrategies.forEach((s, i) => {
    if (!docNames.has(s.featureName)) strays.push(`featureStrategies[${i}]: ${s.featureName}`);
  });
  (data.featureEnvironments ?? []).forEach((e, i) => {
    const name = e.featureName ?? e.name;
    if (name === undefined) strays.push(`featureEnvironments[${i}]: no featureName`);
    else if (!docNames.has(name)) strays.push(`featureEnvironments[${i}]: ${name}`);
  });
  (data.featureTags ?? []).forEach((t, i) => {
    if (!docNames.has(t.featureName)) strays.push(`featureTags[${i}]: ${t.featureName}`);
  });
  (data.dependencies ?? []).forEach((d, i) => {
    if (!docNames.has(d.feature)) strays.push(`dependencies[${i}]: ${d.feature}`);
  });
  (data.links ?? []).forEach((l, i) => {
    if (!docNames.has(l.feature)) strays.push(`links[${i}]: ${l.feature}`);
  });

  // Strategies.
  const unknownTypes = new Set<string>();
  const customTypes = new Set<string>();
  const badConstraints: string[] = [];
  const badVariants: string[] = [];
  const badParameters: string[] = [];
  const unlistedSegments: string[] = [];
  const missingSegments = new Set<string>();
  const docSegments = new Map((data.segments ?? []).map((s) => [s.id, s.name]));
  const strategies = new Map<string, StrategyDraftWithId[]>(imported.map((f) => [f.name, []]));
  for (const [i, s] of data.featureStrategies.entries()) {
    const pause = slices.pause();
    if (pause) await pause;
    const list = strategies.get(s.featureName);
    if (!list) continue;
    const where = `featureStrategies[${i}] (${s.featureName}, ${s.name})`;
    const builtIn = facts.strategyTypes.get(s.name);
    if (builtIn === undefined) unknownTypes.add(s.name);
    else if (!builtIn) customTypes.add(s.name);
    const base = `/body/data/featureStrategies/${i}/constraints`;
    // One compile budget for the whole document, around each synchronous step (the loop yields).
    const found = withCompileBudget(() => constraintsProblems(s.constraints, base), budget);
    for (const p of found) badConstraints.push(`${where}: ${p.message}`);
    for (const p of rolloutProblems(s.name, s.parameters, '')) badParameters.push(`${where}: ${p.message}`);
    const variants = variantList(s.variants ?? [], false);
    for (const p of variants.problems) badVariants.push(`${where}: ${p}`);
    const segments: number[] = [];
    for (const id of s.segments ?? []) {
      const name = docSegments.get(id);
      const target = name === undefined ? undefined : facts.segments.get(name);
      if (name === undefined) unlistedSegments.push(`${where}: segment id ${id}`);
      else if (!target || (target.project !== null && target.project !== project)) missingSegments.add(name);
      else segments.push(target.id);
    }
    // A plain literal (a leading spread would make V8 build every one of these on its slow path).
    list.push({
      id: s.id,
      name: s.name,
      title: s.title ?? null,
      disabled: s.disabled ?? false,
      sortOrder: s.sortOrder ?? list.length,
      parameters: completeParameters(
        s.name,
        s.parameters ?? {},
        s.featureName,
        facts.project.defaultStickiness,
      ),
      constraints: s.constraints && s.constraints.length > 0 ? s.constraints.map(storedConstraint) : [],
      // Strategy variants have no overrides: variantList(…, false) left them out.
      variants: variants.stored,
      segments: segments.length > 1 ? [...new Set(segments)].sort((a, b) => a - b) : segments,
    });
  }

  // Context fields.
  const conflicting = new Set<string>();
  const otherProjectFields = new Set<string>();
  const contextFields: ImportPlan['contextFields'] = [];
  const seenFields = new Set<string>();
  for (const c of data.contextFields ?? []) {
    if (seenFields.has(c.name)) continue;
    seenFields.add(c.name);
    const legal = c.legalValues ?? [];
    const have = facts.contextFields.get(c.name);
    if (have) {
      if (have.project !== null && have.project !== project) otherProjectFields.add(c.name);
      if (legal.some((v) => !have.legalValues.includes(v.value))) conflicting.add(c.name);
      continue;
    }
    const values = new Map(legal.map((v) => [v.value, v]));
    contextFields.push({
      name: c.name,
      description: c.description ?? null,
      stickiness: c.stickiness ?? false,
      sortOrder: c.sortOrder ?? 10,
      legalValues: [...values.values()].map((v) => ({
        value: v.value,
        ...(v.description !== undefined && { description: v.description }),
      })),
      project: c.project ? project : null,
    });
  }

  // Tag types and tags.
  const docTagTypes = new Map(data.tagTypes.map((t) => [t.name, t]));
  const unknownTagTypes = new Set<string>();
  const newTagTypes = new Map<string, ImportPlan['tagTypes'][number]>();
  const badTags: string[] = [];
  const tags = new Map<string, { type: string; value: string }[]>(imported.map((f) => [f.name, []]));
  for (const t of data.featureTags ?? []) {
    const pause = slices.pause();
    if (pause) await pause;
    const list = tags.get(t.featureName);
    if (!list) continue;
    const value = t.tagValue.trim();
    if (value.length < 2 || value.length > 50) badTags.push(`${t.featureName}: ${t.tagType}:${t.tagValue}`);
    const declared = docTagTypes.get(t.tagType);
    if (!facts.tagTypes.has(t.tagType)) {
      if (!declared) unknownTagTypes.add(t.tagType);
      else
        newTagTypes.set(t.tagType, {
          name: declared.name,
          description: declared.description ?? null,
          icon: declared.icon ?? null,
          color: declared.color ?? null,
        });
    }
    if (!list.some((x) => x.type === t.tagType && x.value === value)) list.push({ type: t.tagType, value });
  }

  // On/off and variants in the target environment.
  const enabled = new Map<string, boolean>();
  const variants = new Map<string, StoredVariant[]>();
  for (const [i, e] of (data.featureEnvironments ?? []).entries()) {
    const pause = slices.pause();
    if (pause) await pause;
    const name = e.featureName ?? e.name;
    if (name === undefined || !importedNames.has(name)) continue;
    if (e.enabled !== undefined) enabled.set(name, e.enabled);
    if (e.variants !== undefined) {
      const checked = variantList(e.variants, true);
      for (const p of checked.problems) badVariants.push(`featureEnvironments[${i}] (${name}): ${p}`);
      variants.set(name, checked.stored);
    }
  }

  // Links: when the document has them, the links of every imported flag become the document's.
  const links = data.links && new Map<string, BatchLink[]>(imported.map((f) => [f.name, []]));
  const badLinks: string[] = [];
  for (const entry of data.links ?? []) {
    const pause = slices.pause();
    if (pause) await pause;
    const list = links?.get(entry.feature);
    if (!list) continue;
    for (const l of entry.links) {
      const url = linkUrl(l.url);
      if (url === undefined) badLinks.push(`${entry.feature}: ${l.url}`);
      else list.push({ url, title: l.title || null });
    }
  }
  const tooManyLinks = [...(links ?? [])].filter(([, list]) => list.length > MAX_LINKS).map(([flag]) => flag);

  // Dependencies: the parents of every imported flag become the document's.
  const parents = new Map<string, WantedParent[]>(imported.map((f) => [f.name, []]));
  const missingParents = new Set<string>();
  const inactiveParents = new Set<string>();
  const badDependencies: string[] = [];
  for (const d of data.dependencies ?? []) {
    const pause = slices.pause();
    if (pause) await pause;
    const list = parents.get(d.feature);
    if (!list) continue;
    for (const p of d.dependencies) {
      const edge = `${d.feature} → ${p.feature}`;
      const variantsOf = p.variants && p.variants.length > 0 ? sorted(p.variants) : null;
      const must = p.enabled ?? true;
      if (p.feature === d.feature) badDependencies.push(`${edge}: a flag cannot depend on itself`);
      else if (variantsOf && !must) badDependencies.push(`${edge}: variants need the parent to be enabled`);
      if (!importedNames.has(p.feature)) {
        const e = existing(p.feature);
        if (!e && !docNames.has(p.feature)) missingParents.add(p.feature);
        else if (!e || e.project !== project || e.archived) inactiveParents.add(p.feature);
      }
      if (!list.some((x) => x.feature === p.feature))
        list.push({ feature: p.feature, enabled: must, variants: variantsOf });
    }
  }
  // One level: after the import, no flag may both have a parent and be one.
  const kept = facts.dependencies.filter((d) => !importedNames.has(d.child));
  const keptChildren = new Set(kept.map((d) => d.child));
  const parentsAfter = new Set([
    ...kept.map((d) => d.parent),
    ...[...parents.values()].flat().map((p) => p.feature),
  ]);
  const hasParents = (flag: string) =>
    importedNames.has(flag) ? (parents.get(flag)?.length ?? 0) > 0 : keptChildren.has(flag);
  const hasChildren = (flag: string) => parentsAfter.has(flag);
  for (const [child, list] of parents) {
    for (const p of list) {
      if (p.feature !== child && (hasChildren(child) || hasParents(p.feature))) {
        badDependencies.push(`${child} → ${p.feature}: a flag cannot both have a parent and be one`);
      }
    }
  }

  // Errors, in Unleash's order first.
  add(errors, 'We detected the following custom strategy that needs to be created first:', unknownTypes);
  add(
    errors,
    'We detected the following context fields that do not have matching legal values with the imported ones:',
    conflicting,
  );
  add(
    errors,
    `We detected the following context fields that belong to a project other than ${project}:`,
    otherProjectFields,
  );
  add(
    errors,
    `You cannot import a feature that already exist in other projects. You already have the following features defined outside of project ${project}:`,
    inOtherProject.map((f) => `${f.name} (in project ${existing(f.name)?.project})`),
  );
  add(errors, 'We detected the following features are duplicate in your import data:', duplicates);
  const pattern = facts.project.namingPattern;
  if (pattern) {
    const example = facts.project.namingExample ? ` Example: "${facts.project.namingExample}".` : '';
    const description = facts.project.namingDescription ? ` ${facts.project.namingDescription}` : '';
    add(
      errors,
      `The following new features do not match the project's naming pattern "^${pattern}$".${example}${description}`,
      newFlags.filter((f) => !fullMatch(pattern, f.name)).map((f) => f.name),
    );
  }
  const limit = facts.project.featureLimit;
  if (limit !== null && facts.project.activeFlags + newFlags.length > limit) {
    errors.push({
      message: `We detected you want to create ${newFlags.length} new features to a project that already has ${facts.project.activeFlags} existing features, exceeding the maximum limit of ${limit}.`,
      affectedItems: [],
    });
  }
  add(errors, 'We detected the following segments that need to be created first:', missingSegments);
  add(
    errors,
    'We detected the following parent features of dependencies that are neither imported nor exist:',
    missingParents,
  );
  add(errors, 'The following entries name features that are not in the features list:', strays, true);
  add(
    errors,
    'The following strategies name segment ids that the segments list does not have:',
    unlistedSegments,
    true,
  );
  add(errors, 'The following strategies have invalid constraints:', badConstraints, true);
  add(
    errors,
    'The following segments to be created have invalid constraints:',
    facts.segmentPlan.problems,
    true,
  );
  add(errors, 'The following strategies have an invalid rollout percentage:', badParameters, true);
  add(errors, 'The following variants are invalid:', badVariants, true);
  add(
    errors,
    'The following tag types are used by tags but neither exist nor are in tagTypes:',
    unknownTagTypes,
  );
  add(errors, 'The following tags have a value that is not 2-50 characters long:', badTags, true);
  add(
    errors,
    `The following parent features are not active features of project ${project} and are not imported:`,
    inactiveParents,
  );
  add(errors, 'The following dependencies are not allowed:', badDependencies, true);
  add(errors, 'The following links are not http or https URLs:', badLinks, true);
  add(errors, `The following features would have more than ${MAX_LINKS} links:`, tooManyLinks);

  // Warnings.
  add(
    warnings,
    'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:',
    customTypes,
  );
  add(
    warnings,
    'The following features will not be imported as they are currently archived. To import them, please unarchive them first:',
    archivedHere.map((f) => f.name),
  );
  add(
    warnings,
    'The following features are archived in the import data and will not be imported:',
    archivedInDoc.map((f) => f.name),
  );
  add(
    warnings,
    OVERWRITTEN,
    imported.filter((f) => !isNew(f.name)).map((f) => f.name),
  );

  add(
    warnings,
    'The following segments do not exist here and will be created:',
    facts.segmentPlan.create.map((s) => s.name),
  );
  add(
    warnings,
    'The following segments exist here with other constraints than in the import data; they are used as they are, not overwritten:',
    facts.segmentPlan.differing,
  );

  // Permissions the caller lacks.
  const needed: Permission[] = [];
  const need = (permission: Permission, when: boolean) => {
    if (when) needed.push(permission);
  };
  need('UPDATE_FEATURE', imported.length > 0);
  need('CREATE_FEATURE', newFlags.length > 0);
  need('CREATE_TAG_TYPE', newTagTypes.size > 0);
  need('CREATE_CONTEXT_FIELD', contextFields.length > 0);
  need('CREATE_SEGMENT', facts.segmentPlan.create.length > 0);
  need(
    'DELETE_FEATURE_STRATEGY',
    imported.some((f) => facts.withStrategies.has(f.name)),
  );
  need(
    'CREATE_FEATURE_STRATEGY',
    [...strategies.values()].some((list) => list.length > 0),
  );
  need('UPDATE_FEATURE_ENVIRONMENT', enabled.size > 0);
  need(
    'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
    [...variants.values()].some((list) => list.length > 0),
  );
  need('UPDATE_FEATURE_DEPENDENCY', (data.dependencies ?? []).length > 0);
  const missing = needed.filter((p) => !allows(by, p, project, environment));
  const permissions: ImportItem[] =
    missing.length > 0
      ? [
          {
            message: 'We detected you are missing the following permissions:',
            affectedItems: missing.map((p) => PERMISSION_NAMES[p] ?? p),
          },
        ]
      : [];

  return {
    validation: { errors, warnings, permissions },
    plan: {
      flags: imported.map((f) => ({
        name: f.name,
        type: f.type ?? 'release',
        description: f.description || null,
        stale: f.stale ?? false,
        impressionData: f.impressionData ?? false,
      })),
      contextFields,
      tagTypes: [...newTagTypes.values()],
      tags,
      variants,
      enabled,
      strategies,
      parents,
      links,
    },
  };
}
