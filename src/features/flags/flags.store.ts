import { type InferResult, type Kysely, type RawBuilder, sql } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { compiledOnce } from '../../platform/db/compiled-once.js';
import type { DB } from '../../platform/db/schema.js';
import { insertEventsFrom } from '../events/index.js';
import { type FlagRow, toFlagRow } from '../flag-rows/index.js';
import { maintenanceIsOn } from '../maintenance/index.js';
import { STRATEGY_COLUMNS, strategySegmentIds } from '../strategies/index.js';

export interface ProjectForFlags {
  id: string;
  featureLimit: number | null;
  namingPattern: string | null;
  namingExample: string | null;
  namingDescription: string | null;
}

/**
 * The active project. With `lock`, its row stays locked for the rest of the transaction, so
 * concurrent creations in one project count flags one after the other and a flag limit holds
 * under load; projects without a limit need no lock and create flags in parallel.
 */
export async function findActiveProject(
  db: Kysely<DB>,
  projectId: string,
  lock: boolean,
): Promise<ProjectForFlags | undefined> {
  const query = db
    .selectFrom('projects')
    .select([
      'id',
      'feature_limit',
      'feature_naming_pattern',
      'feature_naming_example',
      'feature_naming_description',
    ])
    .where('id', '=', projectId)
    .where('archived_at', 'is', null);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return (
    row && {
      id: row.id,
      featureLimit: row.feature_limit,
      namingPattern: row.feature_naming_pattern,
      namingExample: row.feature_naming_example,
      namingDescription: row.feature_naming_description,
    }
  );
}

/**
 * Locks the project's row as a new flag needs it, before any flag's row is locked (the lock order,
 * see lockFlag): FOR UPDATE when the project has a flag limit (what checkLimit takes, taken at once
 * rather than upgraded from a weaker lock), else FOR KEY SHARE, which inserting the flag takes anyway.
 */
export async function lockProjectForNewFlag(db: Kysely<DB>, project: ProjectForFlags): Promise<void> {
  const query = db.selectFrom('projects').select('id').where('id', '=', project.id);
  await (project.featureLimit === null ? query.forKeyShare() : query.forUpdate()).execute();
}

export async function countActiveFlags(db: Kysely<DB>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('features')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project', '=', projectId)
    .where('archived_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface NewFlag {
  name: string;
  project: string;
  type: string;
  description: string | null;
  impressionData: boolean;
  createdByUserId: number;
  createdByName: string;
}

/** An environment a new flag was given, with what the Flag response shows of it. */
export interface NewFlagEnvironment {
  environment: string;
  type: string;
  sortOrder: number;
}

/**
 * CTEs `added` and `stage`: the environment rows (one per project environment, disabled) and the
 * `initial` stage of the flags the CTE `flag` inserted.
 */
export const newFlagRows = sql`added AS (
      INSERT INTO feature_environments (feature_name, environment)
      SELECT f.name, pe.environment_name FROM flag f
      JOIN project_environments pe ON pe.project_id = f.project
      RETURNING feature_name, environment),
    stage AS (
      INSERT INTO feature_lifecycles (feature_name, stage) SELECT name, 'initial' FROM flag)`;

/**
 * `feature-created`'s data for the new row `f`, as the service's eventData writes it (createdAt in
 * milliseconds, as Date.toISOString gives it).
 */
export const createdEventData = sql`jsonb_build_object('name', f.name, 'description', f.description,
  'type', f.type, 'project', f.project, 'stale', f.stale,
  'createdAt', to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'impressionData', f.impression_data, 'archived', false, 'archivedAt', NULL)`;

/**
 * Inserts the flag with one disabled environment row per project environment and the `initial`
 * lifecycle stage. Returns undefined when the name is taken (by any flag, archived or not): the
 * primary key decides, not a prior lookup.
 */
export async function insertFlag(
  db: Kysely<DB>,
  flag: NewFlag,
  recordedBy?: { name: string; userId: number | null },
  openProjectOnly = false,
): Promise<{
  flag: (FlagRow & { environments: NewFlagEnvironment[] }) | undefined;
  maintenance: boolean;
  /** False when `openProjectOnly` and the project is not open (see below): nothing was written. */
  projectOpen: boolean;
}> {
  // One statement: the flag, its environment rows and its `initial` stage, unless maintenance mode
  // is on (the answer says so: the create route skips the guard's read, `maintenance: 'handler'`).
  // The added environments come back with their type and order, so the caller can answer without
  // reading the flag again.
  // With `recordedBy`, its `feature-created` event too: the data is the flag as eventData (the
  // service) writes it, createdAt in milliseconds as Date.toISOString gives it; the event's tags
  // are read by the same statement, which sees none, so only a flag created without tags can be
  // recorded here.
  // With `openProjectOnly`, the flag is inserted only into an open project: active, with neither a
  // naming pattern nor a flag limit (nothing the caller must check before inserting), so most
  // creates need no read of the project first.
  const created = recordedBy
    ? sql`, recorded AS (${insertEventsFrom(sql`
        SELECT 1 AS n, 'feature-created' AS type, ${recordedBy.name}::text AS created_by,
          ${recordedBy.userId}::int AS created_by_user_id, f.name AS feature_name, f.project,
          NULL::text AS environment, ${createdEventData} AS data, NULL::jsonb AS pre_data
        FROM flag f`)})`
    : sql``;
  const { rows } = await sql<
    Parameters<typeof toFlagRow>[0] & {
      environments: NewFlagEnvironment[];
      maintenance: boolean;
      open: boolean;
    }
  >`
    WITH mode AS (SELECT ${maintenanceIsOn()} AS maintenance),
    open AS (SELECT NOT ${openProjectOnly}::boolean OR EXISTS (
      SELECT 1 FROM projects p WHERE p.id = ${flag.project} AND p.archived_at IS NULL
        AND p.feature_limit IS NULL AND coalesce(p.feature_naming_pattern, '') = '') AS open),
    flag AS (
      INSERT INTO features (name, project, type, description, impression_data, created_by_user_id,
        created_by_name)
      SELECT ${flag.name}::text, ${flag.project}::text, ${flag.type}::text, ${flag.description}::text,
        ${flag.impressionData}::boolean, ${flag.createdByUserId}::int, ${flag.createdByName}::text
      WHERE NOT (SELECT maintenance FROM mode) AND (SELECT open FROM open)
      ON CONFLICT (name) DO NOTHING
      RETURNING name, project, type, description, stale, impression_data, created_at, archived_at),
    ${newFlagRows}${created}
    SELECT m.maintenance, o.open, f.*, (
      SELECT coalesce(json_agg(json_build_object('environment', a.environment, 'type', e.type,
        'sortOrder', e.sort_order) ORDER BY e.sort_order, e.name), '[]'::json)
      FROM added a JOIN environments e ON e.name = a.environment) AS environments
    FROM mode m CROSS JOIN open o LEFT JOIN flag f ON true`.execute(db);
  const row = rows[0];
  const maintenance = row?.maintenance ?? false;
  const projectOpen = row?.open ?? false;
  if (!row || row.name === null) return { flag: undefined, maintenance, projectOpen };
  return { flag: { ...toFlagRow(row), environments: row.environments }, maintenance, projectOpen };
}

export interface FlagPatch {
  type?: string;
  description?: string | null;
  stale?: boolean;
  impressionData?: boolean;
  archivedAt?: Date | null;
}

export async function updateFlag(db: Kysely<DB>, name: string, patch: FlagPatch): Promise<void> {
  const values = {
    ...(patch.type !== undefined && { type: patch.type }),
    ...(patch.description !== undefined && { description: patch.description }),
    ...(patch.stale !== undefined && { stale: patch.stale }),
    ...(patch.impressionData !== undefined && { impression_data: patch.impressionData }),
    ...(patch.archivedAt !== undefined && { archived_at: patch.archivedAt }),
  };
  if (Object.keys(values).length === 0) return;
  await db.updateTable('features').set(values).where('name', '=', name).execute();
}

/** The change `updateFlagRecorded` makes: only the fields given. */
export interface FlagChange {
  type?: string;
  description?: string | null;
  stale?: boolean;
  impressionData?: boolean;
}

/** One writer's change of a flag's own columns, with who made it. */
export interface RecordedChange {
  change: FlagChange;
  by: { name: string; userId: number | null };
}

/**
 * Changes of a flag's own columns (not its archive state), applied in the order given, with each
 * change's events, in one statement: `feature-metadata-updated` (unless that change left the
 * metadata the same) and `feature-stale-on/off` when it flips staleness, as updateFlagMetadata
 * records them. Several changes are what several writers of one flag sent while the previous
 * statement for it ran (flags.service.ts): one row update and one commit for all of them, each
 * still with its own events, each event's `preData` the state the change before it left.
 * Run alone (singleStatement), the flag's row lock is held only while the statement runs and
 * commits. The row is locked first (THE LOCK ORDER, see lockFlag). `updated` is false when no
 * flag of that name is in the project, when maintenance mode is on (`maintenance`) or when the
 * row was held or moved (`busy`, see lockedAsSeen): nothing changed.
 */
export async function updateFlagRecorded(
  db: Kysely<DB>,
  name: string,
  projectId: string,
  changes: RecordedChange[],
): Promise<{ updated: boolean; maintenance: boolean; busy: boolean }> {
  const { rows } = await db.executeQuery(
    changes.length === 1
      ? updateOne(db, oneValues(name, projectId, changes[0] as RecordedChange))
      : updateMany(db, manyValues(name, projectId, changes)),
  );
  const row = rows[0];
  return {
    updated: (row?.updated ?? 0) > 0,
    maintenance: row?.maintenance ?? false,
    busy: row?.busy ?? false,
  };
}

/**
 * updateFlagRecorded and then loadFlagView, in one statement: `view` is the flag as changed,
 * undefined when nothing changed. For an engine that runs one statement at a time (PGlite): one
 * round trip fewer. On PostgreSQL the view would be built while the statement holds the flag's
 * row lock, and concurrent writers of the flag wait that much longer (measured slower there).
 */
export async function updateFlagRecordedWithView(
  db: Kysely<DB>,
  name: string,
  projectId: string,
  changes: RecordedChange[],
): Promise<{ view: FlagViewRow | undefined; maintenance: boolean; busy: boolean }> {
  const { rows } = await db.executeQuery(
    changes.length === 1
      ? updateOneView(db, oneValues(name, projectId, changes[0] as RecordedChange))
      : updateManyView(db, manyValues(name, projectId, changes)),
  );
  const row = rows[0];
  const [maintenance, busy] = [row?.maintenance ?? false, row?.busy ?? false];
  if (!row || row.name === null) return { view: undefined, maintenance, busy };
  const { maintenance: _, busy: __, ...view } = row;
  return { view: view as FlagViewRow, maintenance, busy };
}

const ONE_KEYS = [
  'name',
  'project',
  'typeGiven',
  'type',
  'descriptionGiven',
  'description',
  'stale',
  'impressionData',
  'byName',
  'byUserId',
] as const;
type OneValues = Record<(typeof ONE_KEYS)[number], unknown>;

function oneValues(name: string, projectId: string, { change, by }: RecordedChange): OneValues {
  return {
    name,
    project: projectId,
    typeGiven: change.type !== undefined,
    type: change.type ?? null,
    descriptionGiven: change.description !== undefined,
    description: change.description ?? null,
    stale: change.stale ?? null,
    impressionData: change.impressionData ?? null,
    byName: by.name,
    byUserId: by.userId,
  };
}

/**
 * CTEs `seen` (the flag's row as the statement's snapshot has it) and `old` (that row, locked,
 * unless it is held by another writer or moved since the snapshot). The statement never waits for
 * the row: after a wait it would write on the newest row but read everything else (the tags its
 * events carry, the maintenance mode) as it stood before the other writer committed. A held or
 * moved row leaves `old` empty and the statement says `busy` (see `busy`); the caller then takes
 * the row's lock first and runs the statement again (flags.service.ts).
 */
function lockedAsSeen(v: { name: unknown; project: unknown }) {
  return sql`seen AS (SELECT xmin::text AS version FROM features WHERE name = ${v.name} AND project = ${v.project}),
    old AS (
      SELECT f.name, f.type, f.description, f.stale, f.impression_data FROM features f, seen s
      WHERE f.name = ${v.name} AND f.project = ${v.project} AND NOT (SELECT maintenance FROM mode)
        AND f.xmin::text = s.version
      FOR UPDATE OF f SKIP LOCKED)`;
}

/** Whether the flag is there (and maintenance off) but its row was held or moved (`lockedAsSeen`). */
const busy = sql<boolean>`(EXISTS (SELECT 1 FROM seen) AND NOT (SELECT maintenance FROM mode)
  AND NOT EXISTS (SELECT 1 FROM old))`;

/** One change and its events (CTEs `mode`, `seen`, `old`, `upd` with the new row, `recorded`). */
function oneCtes(v: OneValues) {
  const metadata = (prefix: '' | 'old_') =>
    sql`jsonb_build_object('name', u.name, 'project', u.project, 'description', ${sql.ref(`u.${prefix}description`)},
      'type', ${sql.ref(`u.${prefix}type`)}, 'impressionData', ${sql.ref(`u.${prefix}impression_data`)})`;
  const events = sql`
    SELECT 1 AS n, 'feature-metadata-updated' AS type, ${v.byName}::text AS created_by,
      ${v.byUserId}::int AS created_by_user_id, u.name AS feature_name, u.project, NULL::text AS environment,
      ${metadata('')} AS data, ${metadata('old_')} AS pre_data
    FROM upd u
    UNION ALL
    SELECT 2, CASE WHEN u.stale THEN 'feature-stale-on' ELSE 'feature-stale-off' END, ${v.byName}::text,
      ${v.byUserId}::int, u.name, u.project, NULL::text,
      jsonb_build_object('stale', u.stale), jsonb_build_object('stale', u.old_stale)
    FROM upd u WHERE u.stale IS DISTINCT FROM u.old_stale`;
  return sql`
    WITH mode AS (SELECT ${maintenanceIsOn()} AS maintenance),
    ${lockedAsSeen(v)},
    upd AS (
      UPDATE features AS f SET
        type = CASE WHEN ${v.typeGiven}::boolean THEN ${v.type}::text ELSE old.type END,
        description = CASE WHEN ${v.descriptionGiven}::boolean THEN ${v.description}::text
          ELSE old.description END,
        stale = coalesce(${v.stale}::boolean, old.stale),
        impression_data = coalesce(${v.impressionData}::boolean, old.impression_data)
      FROM old WHERE f.name = old.name
      RETURNING f.*, old.type AS old_type, old.description AS old_description, old.stale AS old_stale,
        old.impression_data AS old_impression_data),
    recorded AS (${insertEventsFrom(events)})`;
}

const MANY_KEYS = ['name', 'project', 'changes'] as const;
type ManyValues = Record<(typeof MANY_KEYS)[number], unknown>;

/**
 * The changes as one JSON array (`ch` below), each row the columns as they stand after that change
 * (k, in order): a column no change up to k gave keeps the flag's value (`*_given` false).
 */
function manyValues(name: string, projectId: string, changes: RecordedChange[]): ManyValues {
  let state: FlagChange = {};
  const rows = changes.map(({ change, by }, at) => {
    state = { ...state, ...change };
    return {
      k: at + 1,
      type_given: state.type !== undefined,
      type: state.type ?? null,
      description_given: state.description !== undefined,
      description: state.description ?? null,
      stale: state.stale ?? null,
      impression_data: state.impressionData ?? null,
      by_name: by.name,
      by_id: by.userId,
    };
  });
  return { name, project: projectId, changes: JSON.stringify(rows) };
}

/**
 * Several changes and their events (CTEs `mode`, `ch`, `seen`, `old`, `st`, `upd`, `recorded` as
 * oneCtes's).
 * `st` holds the flag's state after each change k (k = 0: as it was). The row gets the last
 * state; change k's events compare state k with state k - 1. Only the last state meets the
 * table's constraints; the others need none: a type is one of the body schema's (FLAG_TYPES, all
 * in feature_types), and text the database cannot store fails the whole batch (see the service).
 */
function manyCtes(v: ManyValues) {
  const metadata = (state: 's' | 'p') =>
    sql`jsonb_build_object('name', u.name, 'project', u.project, 'description', ${sql.ref(`${state}.description`)},
      'type', ${sql.ref(`${state}.type`)}, 'impressionData', ${sql.ref(`${state}.impression_data`)})`;
  const steps = sql`upd u CROSS JOIN st s JOIN st p ON p.k = s.k - 1`;
  const events = sql`
    SELECT 2 * s.k AS n, 'feature-metadata-updated' AS type, s.by_name AS created_by,
      s.by_id AS created_by_user_id, u.name AS feature_name, u.project, NULL::text AS environment,
      ${metadata('s')} AS data, ${metadata('p')} AS pre_data
    FROM ${steps}
    UNION ALL
    SELECT 2 * s.k + 1, CASE WHEN s.stale THEN 'feature-stale-on' ELSE 'feature-stale-off' END, s.by_name,
      s.by_id, u.name, u.project, NULL::text,
      jsonb_build_object('stale', s.stale), jsonb_build_object('stale', p.stale)
    FROM ${steps} WHERE s.stale IS DISTINCT FROM p.stale`;
  return sql`
    WITH mode AS (SELECT ${maintenanceIsOn()} AS maintenance),
    ch AS (
      SELECT * FROM jsonb_to_recordset(${v.changes}::jsonb) AS c(k int, type_given boolean, type text,
        description_given boolean, description text, stale boolean, impression_data boolean, by_name text,
        by_id int)),
    ${lockedAsSeen(v)},
    st AS (
      SELECT 0 AS k, NULL::text AS by_name, NULL::int AS by_id, o.type, o.description, o.stale, o.impression_data
      FROM old o
      UNION ALL
      SELECT c.k, c.by_name, c.by_id, CASE WHEN c.type_given THEN c.type ELSE o.type END,
        CASE WHEN c.description_given THEN c.description ELSE o.description END,
        coalesce(c.stale, o.stale), coalesce(c.impression_data, o.impression_data)
      FROM ch c CROSS JOIN old o),
    upd AS (
      UPDATE features AS f SET type = s.type, description = s.description, stale = s.stale,
        impression_data = s.impression_data
      FROM old, st s WHERE f.name = old.name AND s.k = (SELECT max(k) FROM ch)
      RETURNING f.*),
    recorded AS (${insertEventsFrom(events)})`;
}

/** The change(s) and the count of changed rows. */
const updated = (ctes: RawBuilder<unknown>) =>
  sql<{ updated: number; maintenance: boolean; busy: boolean }>`${ctes}
    SELECT count(*)::int AS updated, (SELECT maintenance FROM mode) AS maintenance, ${busy} AS busy FROM upd`;

// The view reads `features` as the CTE holding the changed row (the table itself would show the
// statement's starting point); its other tables are not changed by the statement.
const withView = (db: Kysely<DB>, name: unknown, ctes: RawBuilder<unknown>) => {
  const view = flagViewQuery(db).where('f.name', '=', name as string);
  return sql<
    { [K in keyof FlagViewRow]: FlagViewRow[K] | null } & { maintenance: boolean; busy: boolean }
  >`${ctes},
    features AS (SELECT * FROM upd)
    SELECT m.maintenance, ${busy} AS busy, v.* FROM mode m LEFT JOIN LATERAL ${view} AS v ON true`;
};

// One change is nearly every write; its statement is cheaper to plan and run than the batch's.
const updateOne = compiledOnce(ONE_KEYS, (db, v) => updated(oneCtes(v)).compile(db));
const updateOneView = compiledOnce(ONE_KEYS, (db, v) => withView(db, v.name, oneCtes(v)).compile(db));
const updateMany = compiledOnce(MANY_KEYS, (db, v) => updated(manyCtes(v)).compile(db));
const updateManyView = compiledOnce(MANY_KEYS, (db, v) => withView(db, v.name, manyCtes(v)).compile(db));

export async function enterLifecycleStage(db: Kysely<DB>, name: string, stage: 'archived', at: Date) {
  await db
    .insertInto('feature_lifecycles')
    .values({ feature_name: name, stage, created_at: at })
    .onConflict((oc) => oc.columns(['feature_name', 'stage']).doUpdateSet({ created_at: at }))
    .execute();
}

export async function leaveLifecycleStage(db: Kysely<DB>, name: string, stage: 'archived') {
  await db
    .deleteFrom('feature_lifecycles')
    .where('feature_name', '=', name)
    .where('stage', '=', stage)
    .execute();
}

/** The flag and everything the Flag response shows, in one round trip. */
export async function loadFlagView(db: Kysely<DB>, name: string): Promise<FlagViewRow | undefined> {
  const { rows } = await db.executeQuery(viewStatement(db, { name }));
  return rows[0];
}

/** Built and compiled once per process: a PUT reads the view after its write (compiledOnce). */
const viewStatement = compiledOnce(['name'], (db, v) =>
  flagViewQuery(db)
    .where('f.name', '=', v.name as string)
    .compile(),
);

/** The query behind loadFlagView, without its filter: lists of flags use it with their own. */
export function flagViewQuery(db: Kysely<DB>) {
  return db
    .selectFrom('features as f')
    .select([
      'f.name',
      'f.project',
      'f.type',
      'f.description',
      'f.stale',
      'f.potentially_stale',
      'f.impression_data',
      'f.created_at',
      'f.archived_at',
      'f.last_seen_at',
      'f.created_by_user_id',
      'f.created_by_name',
    ])
    .select((eb) => [
      jsonObjectFrom(
        eb
          .selectFrom('feature_lifecycles as l')
          .select(['l.stage', 'l.created_at'])
          .whereRef('l.feature_name', '=', 'f.name')
          .orderBy('l.created_at', 'desc')
          .orderBy(
            sql`array_position(array['initial','pre-live','live','completed','archived'], l.stage)`,
            'desc',
          )
          .limit(1),
      ).as('lifecycle'),
      jsonArrayFrom(
        eb
          .selectFrom('feature_environments as fe')
          .innerJoin('environments as e', 'e.name', 'fe.environment')
          .innerJoin('project_environments as pe', (join) =>
            join.onRef('pe.environment_name', '=', 'fe.environment').onRef('pe.project_id', '=', 'f.project'),
          )
          .select([
            'fe.environment',
            'fe.enabled',
            'fe.variants',
            'fe.last_seen_at',
            'e.type',
            'e.sort_order',
          ])
          .select((eb2) =>
            jsonArrayFrom(
              eb2
                .selectFrom('feature_strategies as s')
                .select(STRATEGY_COLUMNS)
                .select(strategySegmentIds())
                .whereRef('s.feature_name', '=', 'fe.feature_name')
                .whereRef('s.environment', '=', 'fe.environment')
                .orderBy('s.sort_order')
                .orderBy('s.created_at'),
            ).as('strategies'),
          )
          .whereRef('fe.feature_name', '=', 'f.name')
          .orderBy('e.sort_order')
          .orderBy('e.name'),
      ).as('environments'),
      jsonArrayFrom(
        eb
          .selectFrom('feature_tag as t')
          .select(['t.tag_type as type', 't.tag_value as value'])
          .whereRef('t.feature_name', '=', 'f.name')
          .orderBy('t.tag_type')
          .orderBy('t.tag_value'),
      ).as('tags'),
      jsonArrayFrom(
        eb
          .selectFrom('feature_dependencies as d')
          .select(['d.parent', 'd.enabled', 'd.variants'])
          .whereRef('d.child', '=', 'f.name')
          .orderBy('d.parent'),
      ).as('dependencies'),
      jsonArrayFrom(
        eb
          .selectFrom('feature_dependencies as c')
          .select('c.child')
          .whereRef('c.parent', '=', 'f.name')
          .orderBy('c.child'),
      ).as('children'),
      jsonArrayFrom(
        eb
          .selectFrom('feature_links as k')
          .select(['k.id', 'k.url', 'k.title'])
          .whereRef('k.feature_name', '=', 'f.name')
          .orderBy('k.created_at')
          .orderBy('k.id'),
      ).as('links'),
    ]);
}

export type FlagViewRow = InferResult<ReturnType<typeof flagViewQuery>>[number];

/**
 * Marks flags as seen by an SDK now, in one environment and on the flag itself (search filters
 * and sorts by the flag's value). The flag rows are locked first, in name order, as every write
 * to flags does (see lockFlag), so metrics and configuration changes cannot deadlock.
 */
export async function markFlagsSeen(db: Kysely<DB>, environment: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const list = JSON.stringify(names);
  await sql`UPDATE features SET last_seen_at = now()
    WHERE name IN (SELECT name FROM features
      WHERE name IN (SELECT jsonb_array_elements_text(${list}::jsonb)) ORDER BY name FOR UPDATE)`.execute(db);
  await sql`UPDATE feature_environments SET last_seen_at = now()
    WHERE environment = ${environment}
      AND feature_name IN (SELECT jsonb_array_elements_text(${list}::jsonb))`.execute(db);
}
