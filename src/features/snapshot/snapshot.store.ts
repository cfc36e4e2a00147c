import { type Kysely, type RawBuilder, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { transaction } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';
import { PENDING_TRANSACTIONS, recordedBy } from '../events/index.js';
import {
  activeFlagStrategiesQuery,
  type RawStrategy,
  type StrategyRow,
  toStrategyRow,
} from '../strategies/index.js';

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

/** Everything evaluation needs, read from one snapshot of the database, with its revision. */
export interface ConfigurationRows {
  revision: number;
  /** Event ids below the revision not (yet) seen, within GAP_WINDOW. */
  gaps: number[];
  /** Transactions in progress at the read (PENDING_TRANSACTIONS in the events slice). */
  pending: string[];
  flags: FlagRow[];
  flagEnvironments: FlagEnvironmentRow[];
  strategies: StrategyRow[];
  segments: SegmentRow[];
  dependencies: DependencyRow[];
}

/**
 * Whether any of these event ids exists now, or an event of one of these transactions (a gap, or a
 * transaction in progress at the last read, that has committed since).
 */
export async function anyCommitted(db: Kysely<DB>, ids: number[], pending: string[]): Promise<boolean> {
  if (ids.length === 0 && pending.length === 0) return false;
  const row = await db
    .selectFrom('events')
    .select('id')
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        ...(pending.length > 0 ? [recordedBy(pending)] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** `OR` the event is of one of these transactions, for the WHERE of loadChanges. */
const ofPending = (pending: string[]) => (pending.length > 0 ? sql`OR ${recordedBy(pending)}` : sql``);

/**
 * How far back missing event ids are watched. Event ids come from a sequence when the event is
 * inserted, but transactions commit in their own order: a change whose event id is below the
 * revision already read can commit later. Ids missing below the revision (a transaction still
 * running, or one rolled back) are kept as gaps and looked at again on the next change.
 */
export const GAP_WINDOW = 1000;

/**
 * The start of every configuration read: `rev`, the newest event id (every configuration change
 * appends an event in its transaction).
 */
const REVISION = sql`rev AS (SELECT coalesce(max(id), 0) AS id FROM events)`;

/** The newest event id (see REVISION): what a reader that must see its own writes checks first. */
export async function latestRevision(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ id: number | string }>`WITH ${REVISION} SELECT id FROM rev`.execute(db);
  return Number(rows[0]?.id ?? 0);
}

/** The ids below the revision missing from the events, within GAP_WINDOW (see Gaps), ascending. */
const GAPS = sql<number[]>`(SELECT coalesce(json_agg(g.id ORDER BY g.id), '[]')
  FROM generate_series(greatest(1, (SELECT id FROM rev) - ${GAP_WINDOW - 1}), (SELECT id FROM rev)) AS g(id)
  WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = g.id))`;

/**
 * The row reads of the active configuration, as queries; with `only` (a subquery of flag names),
 * only the rows of those flags.
 */
function rowReads(db: Kysely<DB>, only?: RawBuilder<string>) {
  const narrowed = only as RawBuilder<string>;
  return {
    flags: db
      .selectFrom('features')
      .select(['name', 'project', 'type', 'stale', 'impression_data as impressionData', 'description'])
      .where('archived_at', 'is', null)
      .$if(only !== undefined, (q) => q.where('name', 'in', narrowed))
      .orderBy('name'),
    flagEnvironments: db
      .selectFrom('feature_environments as fe')
      .innerJoin('features as f', 'f.name', 'fe.feature_name')
      .select(['fe.feature_name as flag', 'fe.environment', 'fe.enabled', 'fe.variants'])
      .where('f.archived_at', 'is', null)
      .$if(only !== undefined, (q) => q.where('fe.feature_name', 'in', narrowed)),
    strategies: activeFlagStrategiesQuery(db).$if(only !== undefined, (q) =>
      q.where('s.feature_name', 'in', narrowed),
    ),
    // A flag's dependencies, and those of the flags that name it as a parent (a deleted parent
    // takes its children's dependency rows with it).
    dependencies: db
      .selectFrom('feature_dependencies')
      .select(['child', 'parent', 'enabled', 'variants'])
      .$if(only !== undefined, (q) =>
        q.where((eb) => eb.or([eb('child', 'in', narrowed), eb('parent', 'in', narrowed)])),
      )
      .orderBy('child')
      .orderBy('parent'),
  };
}

interface RowsRead {
  flags: FlagRow[];
  flagEnvironments: FlagEnvironmentRow[];
  strategies: RawStrategy[];
  dependencies: DependencyRow[];
}

function rowsOf(read: RowsRead) {
  return {
    flags: read.flags,
    flagEnvironments: read.flagEnvironments,
    strategies: read.strategies.map(toStrategyRow),
    dependencies: read.dependencies,
  };
}

/**
 * The active configuration. Read in one repeatable-read transaction so the revision matches the
 * rows exactly (a change committed meanwhile shows up under its own, later revision). The rows
 * come as rows, not as one JSON value (see loadChanges): at 10,000 flags PostgreSQL took ~1.5× as
 * long to aggregate them.
 */
export async function loadConfiguration(db: Kysely<DB>): Promise<ConfigurationRows> {
  return transaction(
    db,
    async (tx) => {
      const { rows } = await sql<{
        revision: number | string;
        gaps: number[];
        pending: string[];
      }>`WITH ${REVISION}
        SELECT (SELECT id FROM rev) AS revision, ${GAPS} AS gaps, ${PENDING_TRANSACTIONS} AS pending`.execute(
        tx,
      );
      const reads = rowReads(tx);
      const read = {
        flags: await reads.flags.execute(),
        flagEnvironments: (await reads.flagEnvironments.execute()) as FlagEnvironmentRow[],
        strategies: await reads.strategies.execute(),
        dependencies: (await reads.dependencies.execute()) as unknown as DependencyRow[],
      };
      const segments = await tx
        .selectFrom('segments')
        .select(['id', 'name', 'constraints'])
        .orderBy('id')
        .execute();
      return {
        revision: Number(rows[0]?.revision ?? 0),
        gaps: rows[0]?.gaps ?? [],
        pending: rows[0]?.pending ?? [],
        ...rowsOf(read),
        segments: segments as unknown as SegmentRow[],
      };
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
  pending: string[];
  /** The flags the new events name: their rows below replace what the configuration had. */
  changed: string[];
  /** The environments whose input the change may alter. */
  touched: Set<string> | 'all';
  rows: ReturnType<typeof rowsOf>;
}

/**
 * One row: the revision, gaps, new events and the rows of the flags they name, each a JSON array
 * (`jsonArrayFrom`) whose values are what the row reads give (text, booleans, integers, jsonb:
 * nothing JSON turns into another type).
 */
interface Read extends RowsRead {
  revision: number | string;
  gaps: number[];
  pending: string[];
  events: { type: string; feature_name: string | null; environment: string | null }[];
}

/**
 * What changed since `since` (with the still-missing ids `gaps` and the events of the transactions
 * `pending` at the last read): the flags the new events name,
 * with their rows, read in one statement: one snapshot of the database, so revision, events and
 * rows agree, without a transaction's BEGIN and COMMIT. One round trip instead of nine: under a
 * stream of writes the service reads changes several times a second, and on a busy machine each
 * round trip (waking a database backend, then the service) costs the SDK requests more than the
 * work in it. Undefined when a full read is needed instead: an event that is not about one flag and
 * may change the configuration, or more than `limit` new events (then no rows are read).
 */
export async function loadChanges(
  db: Kysely<DB>,
  since: number,
  gaps: number[],
  pending: string[],
  limit = 500,
): Promise<ConfigurationChange | undefined> {
  const missing = gaps.length > 0 ? sql`OR id IN (${sql.join(gaps)})` : sql``;
  const reads = rowReads(db, sql<string>`(SELECT name FROM changed)`);
  const { rows } = await sql<Read>`WITH ${REVISION},
    ev AS (SELECT type, feature_name, environment FROM events
      WHERE (id > ${since} ${missing} ${ofPending(pending)}) AND id <= (SELECT id FROM rev) LIMIT ${limit + 1}),
    changed AS (SELECT DISTINCT feature_name AS name FROM ev
      WHERE feature_name IS NOT NULL AND (SELECT count(*) FROM ev) <= ${limit})
    SELECT (SELECT id FROM rev) AS revision, ${GAPS} AS gaps, ${PENDING_TRANSACTIONS} AS pending,
      (SELECT coalesce(json_agg(ev), '[]') FROM ev) AS events,
      ${jsonArrayFrom(reads.flags)} AS flags,
      ${jsonArrayFrom(reads.flagEnvironments)} AS "flagEnvironments",
      ${jsonArrayFrom(reads.strategies)} AS strategies,
      ${jsonArrayFrom(reads.dependencies)} AS dependencies`.execute(db);
  const read = rows[0] as Read;
  const { events } = read;
  if (events.length > limit) return undefined;
  if (events.some((e) => e.feature_name === null && !OUTSIDE_CONFIGURATION.test(e.type))) return undefined;
  const ofFlags = events.filter((e) => e.feature_name !== null);
  // An event of one flag environment (on/off, strategies, variants) changes only that
  // environment's input; any other flag event (metadata, archive, dependencies) changes all.
  const touched = ofFlags.some((e) => e.environment === null)
    ? ('all' as const)
    : new Set(ofFlags.map((e) => e.environment as string));
  return {
    revision: Number(read.revision),
    gaps: read.gaps,
    pending: read.pending,
    changed: [...new Set(ofFlags.map((e) => e.feature_name as string))],
    touched,
    rows: rowsOf(read),
  };
}
