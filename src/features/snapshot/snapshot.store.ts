import { type Kysely, sql } from 'kysely';
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
  /** Event ids below the revision not (yet) seen, within GAP_WINDOW. */
  gaps: number[];
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

/** The newest event id and the ids below it that are missing in the window (see Gaps). */
async function revisionAndGaps(
  tx: Kysely<DB>,
  window: number,
): Promise<{ revision: number; gaps: number[] }> {
  const revision = await latestRevision(tx);
  const { rows } = await sql<{ id: number }>`
    SELECT g.id FROM generate_series(${Math.max(1, revision - window + 1)}::bigint, ${revision}::bigint) AS g(id)
    WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = g.id)`.execute(tx);
  return { revision, gaps: rows.map((r) => Number(r.id)) };
}

/** Whether any of these event ids exists now (a gap that has committed since). */
export async function anyCommitted(db: Kysely<DB>, ids: number[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const row = await db.selectFrom('events').select('id').where('id', 'in', ids).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Rows of the active configuration; with `flags`, only the rows of those flags (no segments). */
async function readRows(tx: Kysely<DB>, flags?: string[]) {
  const only = flags ?? [];
  const flagRows = await tx
    .selectFrom('features')
    .select(['name', 'project', 'type', 'stale', 'impression_data as impressionData', 'description'])
    .where('archived_at', 'is', null)
    .$if(flags !== undefined, (q) => q.where('name', 'in', only))
    .orderBy('name')
    .execute();
  const flagEnvironments = await tx
    .selectFrom('feature_environments as fe')
    .innerJoin('features as f', 'f.name', 'fe.feature_name')
    .select(['fe.feature_name as flag', 'fe.environment', 'fe.enabled', 'fe.variants'])
    .where('f.archived_at', 'is', null)
    .$if(flags !== undefined, (q) => q.where('fe.feature_name', 'in', only))
    .execute();
  const strategies = await listActiveFlagStrategies(tx, flags);
  // A flag's dependencies, and those of the flags that name it as a parent (a deleted parent takes
  // its children's dependency rows with it).
  const dependencies = await tx
    .selectFrom('feature_dependencies')
    .select(['child', 'parent', 'enabled', 'variants'])
    .$if(flags !== undefined, (q) =>
      q.where((eb) => eb.or([eb('child', 'in', only), eb('parent', 'in', only)])),
    )
    .orderBy('child')
    .orderBy('parent')
    .execute();
  return {
    flags: flagRows,
    flagEnvironments: flagEnvironments as FlagEnvironmentRow[],
    strategies,
    dependencies: dependencies as unknown as DependencyRow[],
  };
}

/**
 * How far back missing event ids are watched. Event ids come from a sequence when the event is
 * inserted, but transactions commit in their own order: a change whose event id is below the
 * revision already read can commit later. Ids missing below the revision (a transaction still
 * running, or one rolled back) are kept as gaps and looked at again on the next change.
 */
export const GAP_WINDOW = 1000;

/**
 * The active configuration. Read in one repeatable-read transaction so the revision matches the
 * rows exactly (a change committed meanwhile shows up under its own, later revision).
 */
export async function loadConfiguration(db: Kysely<DB>): Promise<ConfigurationRows> {
  return transaction(
    db,
    async (tx) => {
      const { revision, gaps } = await revisionAndGaps(tx, GAP_WINDOW);
      const rows = await readRows(tx);
      const segments = await tx
        .selectFrom('segments')
        .select(['id', 'name', 'constraints'])
        .orderBy('id')
        .execute();
      return { revision, gaps, ...rows, segments: segments as unknown as SegmentRow[] };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/**
 * Event types without a flag that leave the evaluated configuration as it is; any other event
 * without a flag (a segment, project or environment change) asks for a full read.
 */
const OUTSIDE_CONFIGURATION =
  /^(api-token|context-field|tag-|tag-type|strategy-|project-(un)?favorited|features-exported|maintenance-mode-toggled|feature-type-updated)/;

export interface ConfigurationChange {
  revision: number;
  gaps: number[];
  /** The flags the new events name: their rows below replace what the configuration had. */
  changed: string[];
  /** The environments whose input the change may alter. */
  touched: Set<string> | 'all';
  rows: Awaited<ReturnType<typeof readRows>>;
}

/**
 * What changed since `since` (with the still-missing ids `gaps`): the flags the new events name,
 * with their rows, read in one repeatable-read transaction. Undefined when a full read is needed
 * instead: an event that is not about one flag and may change the configuration, or more than
 * `limit` new events.
 */
export async function loadChanges(
  db: Kysely<DB>,
  since: number,
  gaps: number[],
  limit = 500,
): Promise<ConfigurationChange | undefined> {
  return transaction(
    db,
    async (tx) => {
      const now = await revisionAndGaps(tx, GAP_WINDOW);
      const events = await tx
        .selectFrom('events')
        .select(['type', 'feature_name', 'environment'])
        .where((eb) => eb.or([eb('id', '>', since), ...(gaps.length > 0 ? [eb('id', 'in', gaps)] : [])]))
        .where('id', '<=', now.revision)
        .limit(limit + 1)
        .execute();
      if (events.length > limit) return undefined;
      if (events.some((e) => e.feature_name === null && !OUTSIDE_CONFIGURATION.test(e.type)))
        return undefined;
      const ofFlags = events.filter((e) => e.feature_name !== null);
      const changed = [...new Set(ofFlags.map((e) => e.feature_name as string))];
      // An event of one flag environment (on/off, strategies, variants) changes only that
      // environment's input; any other flag event (metadata, archive, dependencies) changes all.
      const touched = ofFlags.some((e) => e.environment === null)
        ? ('all' as const)
        : new Set(ofFlags.map((e) => e.environment as string));
      // Only events outside the configuration (API tokens, context fields): no rows to read (and
      // `IN ()` is not SQL).
      const rows =
        changed.length === 0
          ? { flags: [], flagEnvironments: [], strategies: [], dependencies: [] }
          : await readRows(tx, changed);
      return { ...now, changed, touched, rows };
    },
    { isolationLevel: 'repeatable read' },
  );
}
