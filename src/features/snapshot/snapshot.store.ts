import type { Kysely } from 'kysely';
import { transaction } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';
import { listActiveFlagStrategies, type StrategyRow } from '../strategies/index.js';

export interface FlagRow {
  name: string;
  project: string;
  type: string;
  stale: boolean;
  impressionData: boolean;
  description: string | null;
}

export interface FlagEnvironmentRow {
  flag: string;
  environment: string;
  enabled: boolean;
  variants: unknown[];
}

export interface SegmentRow {
  id: number;
  name: string;
  constraints: unknown[];
}

export interface DependencyRow {
  child: string;
  parent: string;
  enabled: boolean;
  variants: string[] | null;
}

/** Everything evaluation needs, read in one consistent transaction, with its revision. */
export interface ConfigurationRows {
  revision: number;
  flags: FlagRow[];
  flagEnvironments: FlagEnvironmentRow[];
  strategies: StrategyRow[];
  segments: SegmentRow[];
  dependencies: DependencyRow[];
}

/** The newest event id: every configuration change appends an event in its transaction. */
export async function latestRevision(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/**
 * The active configuration. Read in one repeatable-read transaction so the revision matches the
 * rows exactly (a change committed meanwhile shows up under its own, later revision).
 */
export async function loadConfiguration(db: Kysely<DB>): Promise<ConfigurationRows> {
  return transaction(
    db,
    async (tx) => {
      const revision = await latestRevision(tx);
      const flags = await tx
        .selectFrom('features')
        .select(['name', 'project', 'type', 'stale', 'impression_data as impressionData', 'description'])
        .where('archived_at', 'is', null)
        .orderBy('name')
        .execute();
      const flagEnvironments = await tx
        .selectFrom('feature_environments as fe')
        .innerJoin('features as f', 'f.name', 'fe.feature_name')
        .select(['fe.feature_name as flag', 'fe.environment', 'fe.enabled', 'fe.variants'])
        .where('f.archived_at', 'is', null)
        .execute();
      const strategies = await listActiveFlagStrategies(tx);
      const segments = await tx
        .selectFrom('segments')
        .select(['id', 'name', 'constraints'])
        .orderBy('id')
        .execute();
      const dependencies = await tx
        .selectFrom('feature_dependencies')
        .select(['child', 'parent', 'enabled', 'variants'])
        .orderBy('child')
        .orderBy('parent')
        .execute();
      return {
        revision,
        flags,
        flagEnvironments: flagEnvironments as FlagEnvironmentRow[],
        strategies,
        segments: segments as unknown as SegmentRow[],
        dependencies: dependencies as unknown as DependencyRow[],
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}
