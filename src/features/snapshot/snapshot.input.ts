import type {
  ConstraintInput,
  FlagInput,
  SnapshotInput,
  StrategyInput,
  VariantDefinition,
} from '../../evaluation/index.js';
import type { StrategyRow } from '../strategies/index.js';
import { SharedMap, type SharedMapDraft } from './shared-map.js';
import type { ConfigurationRows } from './snapshot.store.js';

/** What a flag's evaluation result is reported with, beside the engine's own fields. */
export interface FlagMeta {
  name: string;
  project: string;
  type: string;
  stale: boolean;
  impressionData: boolean;
  description: string | null;
}

type Dependency = { feature: string; enabled: boolean; variants?: string[] };
type FlagEnvironment = { enabled: boolean; variants: VariantDefinition[] };

/** Configuration rows grouped once per revision, so building any environment is a lookup. */
export interface IndexedConfiguration {
  revision: number;
  /** Event ids below the revision not seen yet (see GAP_WINDOW in snapshot.store.ts). */
  gaps: number[];
  /** Transactions in progress at the read, whose events it could not see (PENDING_TRANSACTIONS in the events slice). */
  pending: string[];
  /** By name (code-unit order, which is the byte order of the ASCII names flags have). */
  flags: FlagMeta[];
  flagsByName: SharedMap<FlagMeta>;
  /** environment -> flag -> state. */
  environments: Map<string, SharedMap<FlagEnvironment>>;
  /** key(flag, environment) -> strategies in client-API order. */
  strategies: SharedMap<StrategyRow[]>;
  /** child -> its parents, by parent name. */
  dependencies: Map<string, Dependency[]>;
  segments: ConfigurationRows['segments'];
  /** This revision's identity for `from` (an empty object: it holds nothing older alive). */
  token?: object;
  /**
   * Set by applyChange: the revisions this one was made from, newest first, each with its token
   * and the flags whose input may differ between it and the next one, so that an environment
   * built at any of them is patched (flags affected since then made again) rather than made whole:
   * under a stream of writes most revisions are replaced before anyone reads an environment.
   */
  from?: { base: object; affected: Set<string> }[];
}

/** How many revisions back an environment can be patched from (see `from`). */
const PATCH_REVISIONS = 32;

const key = (flag: string, environment: string) => `${flag}\u0000${environment}`;
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type FlagRows = Pick<ConfigurationRows, 'flags' | 'flagEnvironments' | 'strategies' | 'dependencies'>;

function toDependency(d: ConfigurationRows['dependencies'][number]): Dependency {
  return { feature: d.parent, enabled: d.enabled, ...(d.variants?.length ? { variants: d.variants } : {}) };
}

/** The per-flag maps of a configuration being made (see SharedMap). */
interface Drafts {
  flagsByName: SharedMapDraft<FlagMeta>;
  environments: Map<string, SharedMapDraft<FlagEnvironment>>;
  strategies: SharedMapDraft<StrategyRow[]>;
  dependencies: Map<string, Dependency[]>;
}

function finish(drafts: Drafts) {
  return {
    flagsByName: drafts.flagsByName.done(),
    environments: new Map([...drafts.environments].map(([name, draft]) => [name, draft.done()])),
    strategies: drafts.strategies.done(),
    dependencies: drafts.dependencies,
  };
}

/** Adds the rows of some flags to the maps (which hold nothing of those flags yet). */
function addFlagRows(config: Drafts, rows: FlagRows, changed?: Set<string>) {
  for (const fe of rows.flagEnvironments) {
    let byFlag = config.environments.get(fe.environment);
    if (!byFlag) {
      byFlag = SharedMap.empty<FlagEnvironment>().edit();
      config.environments.set(fe.environment, byFlag);
    }
    byFlag.set(fe.flag, { enabled: fe.enabled, variants: fe.variants as VariantDefinition[] });
  }
  for (const s of rows.strategies) {
    const k = key(s.featureName, s.environment);
    config.strategies.set(k, [...(config.strategies.get(k) ?? []), s]);
  }
  for (const d of rows.dependencies) {
    // A changed flag's own list was cleared; for a child that did not change, only the rows that
    // name a changed parent were read (and cleared), its other parents are kept.
    if (changed && !changed.has(d.child) && !changed.has(d.parent)) continue;
    config.dependencies.set(d.child, [...(config.dependencies.get(d.child) ?? []), toDependency(d)]);
  }
}

export function indexConfiguration(rows: ConfigurationRows): IndexedConfiguration {
  const flags = [...rows.flags].sort((a, b) => byName(a.name, b.name));
  const drafts: Drafts = {
    flagsByName: SharedMap.empty<FlagMeta>().edit(),
    environments: new Map(),
    strategies: SharedMap.empty<StrategyRow[]>().edit(),
    dependencies: new Map(),
  };
  for (const flag of flags) drafts.flagsByName.set(flag.name, flag);
  addFlagRows(drafts, rows);
  for (const list of drafts.dependencies.values()) list.sort((a, b) => byName(a.feature, b.feature));
  return {
    revision: rows.revision,
    gaps: rows.gaps,
    pending: rows.pending,
    flags,
    ...finish(drafts),
    segments: rows.segments,
    token: {},
  };
}

/**
 * The configuration after a change to some flags: everything of those flags is replaced by the
 * rows just read (a flag without rows was archived or deleted); the rest is shared with the
 * previous revision's maps (SharedMap versions), never changed in place (a reader may still hold
 * them).
 * Equal to `indexConfiguration` of a full read at the same revision (a test holds them equal).
 */
export function applyChange(
  previous: IndexedConfiguration,
  change: { revision: number; gaps: number[]; pending: string[]; changed: string[]; rows: FlagRows },
): IndexedConfiguration {
  // Work per change in proportion to the changed flags where it can be: the previous flags are
  // merged with the (few, sorted) changed ones instead of sorted again, and the maps are new
  // versions of the previous ones, made of the changes.
  const changed = new Set(change.changed);
  const flags = mergeByName(
    previous.flags.filter((f) => !changed.has(f.name)),
    [...change.rows.flags].sort((a, b) => byName(a.name, b.name)),
  );
  const flagsByName = previous.flagsByName.edit();
  for (const name of changed) flagsByName.delete(name);
  for (const flag of change.rows.flags) flagsByName.set(flag.name, flag);
  const environments = new Map<string, SharedMapDraft<FlagEnvironment>>();
  for (const [environment, byFlag] of previous.environments) {
    const draft = byFlag.edit();
    for (const name of changed) draft.delete(name);
    environments.set(environment, draft);
  }
  const strategies = previous.strategies.edit();
  // A strategy's flag environment has its row (a foreign key), so every strategy key names an
  // environment of `environments`.
  for (const name of changed)
    for (const env of previous.environments.keys()) strategies.delete(key(name, env));
  const dependencies = new Map<string, Dependency[]>();
  // The changed flags, and the children whose list of parents is made again below.
  const affected = new Set(changed);
  for (const [child, parents] of previous.dependencies) {
    if (changed.has(child)) continue;
    // The same list object when none of its parents changed (environmentInput reuses by identity).
    const touched = parents.some((p) => changed.has(p.feature));
    const kept = touched ? parents.filter((p) => !changed.has(p.feature)) : parents;
    if (touched) affected.add(child);
    if (kept.length > 0) dependencies.set(child, kept);
  }
  for (const d of change.rows.dependencies) affected.add(d.child);
  const drafts: Drafts = { flagsByName, environments, strategies, dependencies };
  addFlagRows(drafts, change.rows, changed);
  for (const [child, list] of dependencies) {
    if (list !== previous.dependencies.get(child)) list.sort((a, b) => byName(a.feature, b.feature));
  }
  return {
    revision: change.revision,
    gaps: change.gaps,
    pending: change.pending,
    flags,
    ...finish(drafts),
    segments: previous.segments,
    token: {},
    ...(previous.token
      ? { from: [{ base: previous.token, affected }, ...(previous.from ?? []).slice(0, PATCH_REVISIONS - 1)] }
      : {}),
  };
}

/** Two lists sorted by name, without names in common, as one sorted list. */
function mergeByName<T extends { name: string }>(a: T[], b: T[]): T[] {
  if (b.length === 0) return a;
  const merged: T[] = [];
  let j = 0;
  for (const item of a) {
    while (j < b.length && byName((b[j] as T).name, item.name) < 0) merged.push(b[j++] as T);
    merged.push(item);
  }
  while (j < b.length) merged.push(b[j++] as T);
  return merged;
}

function toStrategy(row: StrategyRow): StrategyInput {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    disabled: row.disabled,
    parameters: row.parameters,
    constraints: row.constraints as ConstraintInput[],
    segments: row.segments,
    variants: row.variants as VariantDefinition[],
  };
}

/** What one flag's engine input in one environment is made of, and that input. */
export interface FlagInputSource {
  meta: FlagMeta;
  state: FlagEnvironment | undefined;
  strategies: StrategyRow[] | undefined;
  dependencies: Dependency[] | undefined;
  input: FlagInput;
}

/**
 * The engine input for one environment: every active flag, on or off there (a flag without a row
 * for the environment is off and has no strategies), with all its strategies in client-API order.
 * Disabled strategies are included; the engine reports them and leaves them out of the result
 * (docs/evaluation.md §0.4), which equals what SDKs compute without them.
 *
 * `previous` (the same environment's sources at the previous revision) lets a flag whose rows are
 * the same objects as before keep its input object, so what is derived per flag (the client
 * payload's serialised flags) is derived again only for the flags that changed.
 */
export function environmentInput(
  config: IndexedConfiguration,
  environment: string,
  previous?: EnvironmentInput & { token?: object },
): EnvironmentInput {
  const affected = previous?.token === undefined ? undefined : affectedSince(config, previous.token);
  if (previous && affected) return patchedInput(config, environment, previous, affected);
  const byFlag = config.environments.get(environment);
  const sources = SharedMap.empty<FlagInputSource>().edit();
  const features = config.flags.map((meta) => {
    const source = flagSource(config, environment, byFlag, meta, previous?.sources.get(meta.name));
    sources.set(meta.name, source);
    return source.input;
  });
  const segments = config.segments.map((s) => ({
    id: s.id,
    name: s.name,
    constraints: s.constraints as ConstraintInput[],
  }));
  return { input: { features, segments }, sources: sources.done() };
}

/** The flags whose input may differ since the revision of `token`, if it is one of `from`'s. */
function affectedSince(config: IndexedConfiguration, token: object): Set<string> | undefined {
  const links = config.from ?? [];
  const at = links.findIndex((link) => link.base === token);
  if (at <= 0) return at === 0 ? links[0]?.affected : undefined;
  const affected = new Set<string>();
  for (const link of links.slice(0, at + 1)) for (const name of link.affected) affected.add(name);
  return affected;
}

export interface EnvironmentInput {
  input: SnapshotInput;
  sources: SharedMap<FlagInputSource>;
}

/**
 * The environment as built at one of the revisions this one was made from, with the flags
 * affected since made again: the same result as building it whole (applyChange keeps segments and every other flag's
 * rows), in proportion to the change rather than to the number of flags.
 */
function patchedInput(
  config: IndexedConfiguration,
  environment: string,
  previous: EnvironmentInput,
  affected: Set<string>,
): EnvironmentInput {
  const byFlag = config.environments.get(environment);
  const sources = previous.sources.edit();
  const made: FlagInput[] = [];
  for (const name of affected) {
    sources.delete(name);
    const meta = config.flagsByName.get(name);
    if (!meta) continue; // archived or deleted
    const source = flagSource(config, environment, byFlag, meta, previous.sources.get(name));
    sources.set(name, source);
    made.push(source.input);
  }
  const kept = previous.input.features.filter((f) => !affected.has(f.name));
  const features = mergeByName(
    kept,
    made.sort((a, b) => byName(a.name, b.name)),
  );
  return { input: { features, segments: previous.input.segments ?? [] }, sources: sources.done() };
}

/** One flag's input in the environment: `before`'s when made of the same rows. */
function flagSource(
  config: IndexedConfiguration,
  environment: string,
  byFlag: SharedMap<FlagEnvironment> | undefined,
  meta: FlagMeta,
  before: FlagInputSource | undefined,
): FlagInputSource {
  const state = byFlag?.get(meta.name);
  const strategies = state ? config.strategies.get(key(meta.name, environment)) : undefined;
  const dependencies = config.dependencies.get(meta.name);
  if (
    before !== undefined &&
    before.meta === meta &&
    before.state === state &&
    before.strategies === strategies &&
    before.dependencies === dependencies
  ) {
    return before;
  }
  const input: FlagInput = {
    name: meta.name,
    project: meta.project,
    type: meta.type,
    stale: meta.stale,
    impressionData: meta.impressionData,
    description: meta.description,
    enabled: state?.enabled ?? false,
    strategies: (strategies ?? []).map(toStrategy),
    variants: state?.variants ?? [],
    dependencies: dependencies ?? [],
  };
  return { meta, state, strategies, dependencies, input };
}
