import { type FlagMeta, type IndexedConfiguration, SharedMap } from '../features/snapshot/index.js';
import type { StrategyRow } from '../features/strategies/index.js';

/** A flag as `/api/client/features` sends it (this service's or Unleash's). */
export interface ClientFeature {
  name: string;
  type?: string;
  description?: string | null;
  project?: string;
  enabled: boolean;
  stale?: boolean;
  impressionData?: boolean;
  strategies?: {
    id?: string;
    name: string;
    title?: string | null;
    parameters?: Record<string, string>;
    constraints?: unknown[];
    segments?: number[];
    variants?: unknown[];
  }[];
  variants?: unknown[];
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[];
}

/** The client-features document of one environment, as the upstream served it. */
export interface ClientDocument {
  features: ClientFeature[];
  segments?: { id: number; name?: string; constraints?: unknown[] }[];
  meta?: { revisionId?: number };
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const key = (flag: string, environment: string) => `${flag}\u0000${environment}`;

/**
 * The configuration an edge replica evaluates: the upstream's documents, one per environment,
 * turned into the same indexed form the service builds from its tables, so the SDK routes and the
 * engine work on it unchanged. A flag's metadata is taken from the first environment that lists it.
 * Strategies without an id (SDK payloads need none) get one made of flag, environment and position.
 */
export function indexDocuments(
  documents: Map<string, ClientDocument>,
  revision: number,
): IndexedConfiguration {
  const flags = new Map<string, FlagMeta>();
  const environments: IndexedConfiguration['environments'] = new Map();
  const states = new Map<string, Map<string, { enabled: boolean; variants: never[] }>>();
  const strategies = new Map<string, StrategyRow[]>();
  const dependencies: IndexedConfiguration['dependencies'] = new Map();
  const segments = new Map<number, IndexedConfiguration['segments'][number]>();
  for (const [environment, document] of documents) {
    const byFlag = new Map<string, { enabled: boolean; variants: never[] }>();
    states.set(environment, byFlag);
    for (const f of document.features) {
      if (!flags.has(f.name)) {
        flags.set(f.name, {
          name: f.name,
          project: f.project ?? 'default',
          type: f.type ?? 'release',
          stale: f.stale ?? false,
          impressionData: f.impressionData ?? false,
          description: f.description ?? null,
        });
      }
      byFlag.set(f.name, { enabled: f.enabled, variants: (f.variants ?? []) as never[] });
      strategies.set(
        key(f.name, environment),
        (f.strategies ?? []).map((s, index) => ({
          id: s.id ?? `${f.name}:${environment}:${index}`,
          featureName: f.name,
          environment,
          name: s.name,
          title: s.title ?? null,
          disabled: false,
          sortOrder: index,
          parameters: s.parameters ?? {},
          constraints: s.constraints ?? [],
          variants: s.variants ?? [],
          segments: s.segments ?? [],
        })),
      );
      if (f.dependencies?.length && !dependencies.has(f.name)) {
        const parents = f.dependencies.map((d) => ({
          feature: d.feature,
          enabled: d.enabled ?? true,
          ...(d.variants?.length ? { variants: d.variants } : {}),
        }));
        dependencies.set(
          f.name,
          parents.sort((a, b) => byName(a.feature, b.feature)),
        );
      }
    }
    for (const s of document.segments ?? []) {
      segments.set(s.id, { id: s.id, name: s.name ?? '', constraints: s.constraints ?? [] });
    }
  }
  for (const [environment, byFlag] of states) environments.set(environment, SharedMap.from(byFlag));
  const sorted = [...flags.values()].sort((a, b) => byName(a.name, b.name));
  return {
    revision,
    gaps: [],
    pending: [],
    flags: sorted,
    flagsByName: SharedMap.from(new Map(sorted.map((f) => [f.name, f]))),
    environments,
    strategies: SharedMap.from(strategies),
    dependencies,
    segments: [...segments.values()].sort((a, b) => a.id - b.id),
  };
}
