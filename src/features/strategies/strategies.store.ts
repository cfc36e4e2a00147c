import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { insertEventsFrom } from '../events/index.js';
import { enterLiveStagesFrom } from '../flag-rows/index.js';
import { maintenanceIsOn } from '../maintenance/index.js';

export interface FlagEnvironmentState {
  project: string;
  archived: boolean;
  /** The environment's type, when the environment exists and is enabled for the flag's project. */
  environmentType: string | null;
  /** The project's default strategy for this environment (jsonb as stored). */
  defaultStrategy: unknown;
  defaultStickiness: string;
}

/**
 * The flag, its project settings and the environment as the project has it, in one query.
 * `lock`: also locks the flag's row, in the same statement: the first step of every change to a
 * flag environment (the lock order, see lockFlag in the flag-rows slice), one round trip.
 */
export async function findFlagEnvironment(
  db: Kysely<DB>,
  flag: string,
  environment: string,
  { lock = false } = {},
): Promise<FlagEnvironmentState | undefined> {
  const row = await db
    .selectFrom('features as f')
    .innerJoin('projects as p', 'p.id', 'f.project')
    .leftJoin('project_environments as pe', (j) =>
      j.onRef('pe.project_id', '=', 'f.project').on('pe.environment_name', '=', environment),
    )
    .leftJoin('environments as e', 'e.name', 'pe.environment_name')
    .select(['f.project', 'f.archived_at', 'e.type', 'pe.default_strategy', 'p.default_stickiness'])
    .where('f.name', '=', flag)
    .$if(lock, (q) => q.forUpdate('f'))
    .executeTakeFirst();
  return (
    row && {
      project: row.project,
      archived: row.archived_at !== null,
      environmentType: row.type,
      defaultStrategy: row.default_strategy,
      defaultStickiness: row.default_stickiness,
    }
  );
}

/**
 * Locks the flag's environment row (creating it if the environment was added to the project after
 * the flag), so that concurrent changes to one flag environment run one after the other. Only after
 * the flag's row (the lock order, see lockFlag): lockForChange in the service takes both.
 */
export async function lockFlagEnvironment(
  db: Kysely<DB>,
  flag: string,
  environment: string,
): Promise<{ enabled: boolean }> {
  // One statement: a row inserted here is locked by the insert (and is off); an existing one is
  // read and locked by the sub-select, which does not see the inserted row (the statement's
  // snapshot), so exactly one branch answers. A concurrent insert of the same row cannot happen:
  // every writer holds the flag's row first.
  const { rows } = await sql<{ enabled: boolean }>`
    WITH created AS (
      INSERT INTO feature_environments (feature_name, environment) VALUES (${flag}, ${environment})
      ON CONFLICT (feature_name, environment) DO NOTHING
      RETURNING enabled
    )
    SELECT enabled FROM created
    UNION ALL
    SELECT enabled FROM (
      SELECT enabled FROM feature_environments
      WHERE feature_name = ${flag} AND environment = ${environment}
      FOR UPDATE
    ) AS existing`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`feature environment ${flag}/${environment} neither created nor found`);
  return row;
}

type ToggleRef = { featureName: string; projectId: string; environment: string };

/**
 * The `feature-environment-enabled`/`-disabled` event of each row a preceding `changed` CTE
 * returns (its `feature_name`): the toggle's event in both of its statements below.
 */
const toggleEvents = (ref: ToggleRef, enabled: boolean, by: { name: string; userId: number | null }) =>
  insertEventsFrom(sql`
    SELECT 1 AS n, ${enabled ? 'feature-environment-enabled' : 'feature-environment-disabled'}::text AS type,
      ${by.name}::text AS created_by, ${by.userId}::int AS created_by_user_id,
      c.feature_name, ${ref.projectId}::text AS project, ${ref.environment}::text AS environment,
      NULL::jsonb AS data, NULL::jsonb AS pre_data
    FROM changed c`);

/**
 * Turns a flag environment on or off with its `feature-environment-enabled`/`-disabled` event, in
 * one statement (one round trip fewer per toggle; the event is written only when the row was).
 */
export async function setFlagEnvironmentEnabledRecorded(
  db: Kysely<DB>,
  ref: ToggleRef,
  enabled: boolean,
  by: { name: string; userId: number | null },
) {
  await sql`WITH changed AS (
      UPDATE feature_environments SET enabled = ${enabled}
      WHERE feature_name = ${ref.featureName} AND environment = ${ref.environment}
      RETURNING feature_name)
    ${toggleEvents(ref, enabled, by)}`.execute(db);
}

/** What `toggleInOneStatement` found and did. */
export interface ToggleOutcome {
  maintenance: boolean;
  /**
   * Another transaction holds the flag's row, or changed it after this statement began: nothing
   * was done, and the general path (which waits for the row and then reads afresh) must decide.
   */
  busy: boolean;
  /** The flag with its project and the environment as the project has it; undefined: no such flag. */
  flag: { project: string; archived: boolean; environmentType: string | null } | undefined;
  /**
   * Whether the statement did all the toggle asks: false when the flag environment's row is
   * missing (the environment came to the project after the flag) or when turning on needs the
   * default strategy (no enabled strategy): those take the general path (setEnabledIn).
   */
  done: boolean;
}

/**
 * The common toggle as one statement, its own transaction: checks maintenance mode and the flag,
 * then sets the flag environment's state with its event and, on enabling, the lifecycle stages;
 * nothing is written unless every check passes and the row exists.
 *
 * Its snapshot is taken when it starts, so it must not act on a flag another writer changed
 * meanwhile (that writer's stages, tags or strategies would be invisible to it). Hence it never
 * waits for the flag's row (SKIP LOCKED: held by someone, the toggle reports `busy`), and a row
 * that moved between the snapshot and the lock (its `xmin` differs; a stage change updates the
 * row through its trigger) is `busy` too. Locks in the order of every writer (lockFlag): the
 * flag's row, the flag environment's row, then (enabling only) the enabled strategies it counts,
 * FOR SHARE, so that one disabled or deleted by a writer that committed in between does not count;
 * one added in between is not seen, and then the general path adds nothing twice (it reads again).
 */
export async function toggleInOneStatement(
  db: Kysely<DB>,
  ref: ToggleRef,
  enabled: boolean,
  by: { name: string; userId: number | null },
  at: Date,
): Promise<ToggleOutcome> {
  const { rows } = await sql<{
    maintenance: boolean;
    busy: boolean;
    project: string | null;
    archived: boolean | null;
    environment_type: string | null;
    done: boolean;
  }>`
    WITH mode AS (SELECT ${maintenanceIsOn()} AS maintenance),
    seen AS (SELECT xmin::text AS version FROM features WHERE name = ${ref.featureName}),
    flag AS (
      SELECT f.project, f.archived_at IS NOT NULL AS archived, e.type AS environment_type,
        f.xmin::text AS version
      FROM features f
      LEFT JOIN project_environments pe
        ON pe.project_id = f.project AND pe.environment_name = ${ref.environment}
      LEFT JOIN environments e ON e.name = pe.environment_name
      WHERE f.name = ${ref.featureName}
      FOR UPDATE OF f SKIP LOCKED),
    target AS (
      SELECT fe.enabled
      FROM mode m, seen s, flag f, feature_environments fe
      WHERE fe.feature_name = ${ref.featureName} AND fe.environment = ${ref.environment}
        AND NOT m.maintenance AND f.version = s.version AND f.project = ${ref.projectId}
        AND f.environment_type IS NOT NULL AND NOT f.archived
      FOR UPDATE OF fe),
    strategy AS (
      SELECT EXISTS (
          SELECT 1 FROM feature_strategies s
          WHERE s.feature_name = ${ref.featureName} AND s.environment = ${ref.environment}
            AND NOT s.disabled
          FOR SHARE) AS enabled
      FROM target WHERE ${enabled}::boolean),
    changed AS (
      UPDATE feature_environments fe SET enabled = ${enabled}
      FROM target t LEFT JOIN strategy st ON true
      WHERE fe.feature_name = ${ref.featureName} AND fe.environment = ${ref.environment}
        AND t.enabled <> ${enabled} AND (NOT ${enabled}::boolean OR coalesce(st.enabled, false))
      RETURNING fe.feature_name),
    recorded AS (${toggleEvents(ref, enabled, by)}),
    staged AS (${enterLiveStagesFrom(
      sql`SELECT feature_name AS name FROM changed WHERE ${enabled}::boolean`,
      sql`(SELECT environment_type = 'production' FROM flag)`,
      at,
    )})
    SELECT m.maintenance,
      s.version IS NOT NULL AND f.version IS DISTINCT FROM s.version AS busy,
      f.project, f.archived, f.environment_type,
      t.enabled IS NOT NULL AND (NOT ${enabled}::boolean OR coalesce(st.enabled, false)) AS done
    FROM mode m LEFT JOIN seen s ON true LEFT JOIN flag f ON true LEFT JOIN target t ON true
      LEFT JOIN strategy st ON true`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the toggle statement answered no row');
  return {
    maintenance: row.maintenance,
    busy: row.busy,
    flag:
      row.project === null
        ? undefined
        : { project: row.project, archived: row.archived === true, environmentType: row.environment_type },
    done: row.done,
  };
}

export interface StrategyRow {
  id: string;
  featureName: string;
  environment: string;
  name: string;
  title: string | null;
  disabled: boolean;
  sortOrder: number;
  parameters: Record<string, string>;
  constraints: unknown[];
  variants: unknown[];
  segments: number[];
}

/**
 * The columns every reader of a stored strategy selects, aliased `s`: this slice's own reads, the
 * flag view (flags slice) and the configuration snapshot. One list, so a new column reaches them all.
 */
export const STRATEGY_COLUMNS = [
  's.id',
  's.feature_name',
  's.environment',
  's.strategy_name',
  's.title',
  's.disabled',
  's.sort_order',
  's.parameters',
  's.constraints',
  's.variants',
] as const;

/**
 * The strategy's segment ids, ascending, as `segments`. Written out rather than calling
 * `strategy_segment_ids` (migrations/0004): a SQL function with a FROM is not inlined, and its
 * query was planned again on every execution of the statement calling it (~50 µs of a flag view
 * on PGlite); as a subquery it is planned with the statement, once.
 */
export const strategySegmentIds = () =>
  sql<number[]>`(SELECT coalesce(array_agg(segment_id ORDER BY segment_id), '{}')
    FROM feature_strategy_segment WHERE feature_strategy_id = s.id)`.as('segments');

function strategyQuery(db: Kysely<DB>) {
  return db.selectFrom('feature_strategies as s').select(STRATEGY_COLUMNS).select(strategySegmentIds());
}

export type RawStrategy = Awaited<ReturnType<ReturnType<typeof strategyQuery>['executeTakeFirstOrThrow']>>;

export const toStrategyRow = (r: RawStrategy): StrategyRow => ({
  id: r.id,
  featureName: r.feature_name,
  environment: r.environment,
  name: r.strategy_name,
  title: r.title,
  disabled: r.disabled,
  sortOrder: r.sort_order,
  parameters: r.parameters,
  constraints: r.constraints,
  variants: r.variants,
  segments: r.segments.map(Number),
});

/** The strategies of a flag environment in evaluation order (sort order, then creation). */
export async function listStrategies(db: Kysely<DB>, flag: string, environment: string) {
  const rows = await strategyQuery(db)
    .where('s.feature_name', '=', flag)
    .where('s.environment', '=', environment)
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
  return rows.map(toStrategyRow);
}

/**
 * The strategies of every active flag in client-API order (sort order, then id), as a query the
 * configuration snapshot narrows and reads inside its own statement; `toStrategyRow` converts its
 * rows.
 */
export function activeFlagStrategiesQuery(db: Kysely<DB>) {
  return strategyQuery(db)
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .where('f.archived_at', 'is', null)
    .orderBy('s.sort_order')
    .orderBy('s.id');
}

/** The strategies of flag `from` in the environments flag `to` also has, in evaluation order. */
export async function listStrategiesToCopy(db: Kysely<DB>, from: string, to: string) {
  const rows = await strategyQuery(db)
    .innerJoin('feature_environments as fe', (join) =>
      join.onRef('fe.environment', '=', 's.environment').on('fe.feature_name', '=', to),
    )
    .where('s.feature_name', '=', from)
    .orderBy('s.environment')
    .orderBy('s.sort_order')
    .orderBy('s.created_at')
    .execute();
  return rows.map(toStrategyRow);
}

/** One strategy of the given flag environment; locked when `lock` (for updates). */
export async function findStrategy(
  db: Kysely<DB>,
  id: string,
  flag: string,
  environment: string,
): Promise<StrategyRow | undefined> {
  const row = await strategyQuery(db)
    .where('s.id', '=', id)
    .where('s.feature_name', '=', flag)
    .where('s.environment', '=', environment)
    .executeTakeFirst();
  return row && toStrategyRow(row);
}

/** Whether a strategy type of that name is defined (built in or custom). */
export async function strategyTypeExists(db: Kysely<DB>, name: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`SELECT 1 AS n FROM strategies WHERE name = ${name}`.execute(db);
  return rows.length > 0;
}

/** Which of the given segment ids exist. */
export async function existingSegmentIds(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('segments').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

export async function nextSortOrder(db: Kysely<DB>, flag: string, environment: string): Promise<number> {
  const row = await db
    .selectFrom('feature_strategies')
    .select(sql<number>`coalesce(max(sort_order) + 1, 0)`.as('next'))
    .where('feature_name', '=', flag)
    .where('environment', '=', environment)
    .executeTakeFirstOrThrow();
  return Number(row.next);
}

export type StrategyValues = Omit<StrategyRow, 'segments'>;

export async function insertStrategy(db: Kysely<DB>, s: StrategyValues, userId: number) {
  await db
    .insertInto('feature_strategies')
    .values({
      id: s.id,
      feature_name: s.featureName,
      environment: s.environment,
      ...strategyColumns(s),
      created_by_user_id: userId,
    })
    .execute();
}

/** The columns a strategy's own values write (insert and update alike). */
function strategyColumns(s: StrategyValues) {
  return {
    strategy_name: s.name,
    title: s.title,
    disabled: s.disabled,
    sort_order: s.sortOrder,
    parameters: JSON.stringify(s.parameters),
    constraints: JSON.stringify(s.constraints),
    variants: JSON.stringify(s.variants),
  };
}

export async function updateStrategy(db: Kysely<DB>, s: StrategyValues) {
  await db.updateTable('feature_strategies').set(strategyColumns(s)).where('id', '=', s.id).execute();
}

/** Makes the strategy's segment links exactly `ids`. */
export async function setStrategySegments(db: Kysely<DB>, id: string, ids: number[]) {
  await db.deleteFrom('feature_strategy_segment').where('feature_strategy_id', '=', id).execute();
  if (ids.length === 0) return;
  await db
    .insertInto('feature_strategy_segment')
    .values(ids.map((segment_id) => ({ feature_strategy_id: id, segment_id })))
    .execute();
}

export async function deleteStrategy(db: Kysely<DB>, id: string) {
  await db.deleteFrom('feature_strategies').where('id', '=', id).execute();
}

export async function setSortOrder(db: Kysely<DB>, id: string, sortOrder: number) {
  await db.updateTable('feature_strategies').set({ sort_order: sortOrder }).where('id', '=', id).execute();
}
