import type {
  ConstraintInput,
  SnapshotInput,
  StrategyInput,
  VariantDefinition,
} from '../../evaluation/index.js';
import type { StrategyRow } from '../strategies/index.js';
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

/** Configuration rows grouped once per revision, so building any environment is a lookup. */
export interface IndexedConfiguration {
  revision: number;
  flags: FlagMeta[];
  flagsByName: Map<string, FlagMeta>;
  environments: Map<string, Map<string, { enabled: boolean; variants: VariantDefinition[] }>>;
  strategies: Map<string, StrategyRow[]>;
  dependencies: Map<string, { feature: string; enabled: boolean; variants?: string[] }[]>;
  segments: ConfigurationRows['segments'];
}

const key = (flag: string, environment: string) => `${flag}\u0000${environment}`;

export function indexConfiguration(rows: ConfigurationRows): IndexedConfiguration {
  const environments = new Map<string, Map<string, { enabled: boolean; variants: VariantDefinition[] }>>();
  for (const fe of rows.flagEnvironments) {
    const byFlag = environments.get(fe.environment) ?? new Map();
    environments.set(fe.environment, byFlag);
    byFlag.set(fe.flag, { enabled: fe.enabled, variants: fe.variants as VariantDefinition[] });
  }
  const strategies = new Map<string, StrategyRow[]>();
  for (const s of rows.strategies) {
    const k = key(s.featureName, s.environment);
    strategies.set(k, [...(strategies.get(k) ?? []), s]);
  }
  const dependencies = new Map<string, { feature: string; enabled: boolean; variants?: string[] }[]>();
  for (const d of rows.dependencies) {
    const entry = {
      feature: d.parent,
      enabled: d.enabled,
      ...(d.variants?.length ? { variants: d.variants } : {}),
    };
    dependencies.set(d.child, [...(dependencies.get(d.child) ?? []), entry]);
  }
  return {
    revision: rows.revision,
    flags: rows.flags,
    flagsByName: new Map(rows.flags.map((f) => [f.name, f])),
    environments,
    strategies,
    dependencies,
    segments: rows.segments,
  };
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

/**
 * The engine input for one environment: every active flag, on or off there (a flag without a row
 * for the environment is off and has no strategies), with all its strategies in client-API order.
 * Disabled strategies are included; the engine reports them and leaves them out of the result
 * (docs/evaluation.md §0.4), which equals what SDKs compute without them.
 */
export function environmentInput(config: IndexedConfiguration, environment: string): SnapshotInput {
  const byFlag = config.environments.get(environment);
  return {
    features: config.flags.map((flag) => {
      const fe = byFlag?.get(flag.name);
      return {
        name: flag.name,
        project: flag.project,
        type: flag.type,
        stale: flag.stale,
        impressionData: flag.impressionData,
        description: flag.description,
        enabled: fe?.enabled ?? false,
        strategies: fe ? (config.strategies.get(key(flag.name, environment)) ?? []).map(toStrategy) : [],
        variants: fe?.variants ?? [],
        dependencies: config.dependencies.get(flag.name) ?? [],
      };
    }),
    segments: config.segments.map((s) => ({
      id: s.id,
      name: s.name,
      constraints: s.constraints as ConstraintInput[],
    })),
  };
}
