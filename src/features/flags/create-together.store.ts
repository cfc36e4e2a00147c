import { type Kysely, sql } from 'kysely';
import { compiledOnce } from '../../platform/db/compiled-once.js';
import type { DB } from '../../platform/db/schema.js';
import { insertEventsFrom } from '../events/index.js';
import { type FlagRow, toFlagRow } from '../flag-rows/index.js';
import { maintenanceIsOn } from '../maintenance/index.js';
import { createdEventData, type NewFlag, type NewFlagEnvironment, newFlagRows } from './flags.store.js';

/** What one statement did with flags created together in one project. */
export interface CreatedTogether {
  maintenance: boolean;
  /** False when the project is not open (see insertFlag's `openProjectOnly`): nothing written. */
  projectOpen: boolean;
  /** The flags inserted, by name; a name taken already is missing (nothing written for it). */
  inserted: Map<string, FlagRow & { environments: NewFlagEnvironment[] }>;
}

/**
 * insertFlag with `recordedBy` and `openProjectOnly` for several new flags of one open project
 * (distinct names, no tags), in one statement: each flag with its environment rows, its `initial`
 * stage and its `feature-created` event (in the order given, by the flag's creator). A name
 * already taken is skipped (ON CONFLICT DO NOTHING): its caller learns why on its own.
 */
export async function insertNewFlags(
  db: Kysely<DB>,
  project: string,
  flags: NewFlag[],
): Promise<CreatedTogether> {
  const input = flags.map((f, at) => ({
    k: at + 1,
    name: f.name,
    type: f.type,
    description: f.description,
    impression_data: f.impressionData,
    by_id: f.createdByUserId,
    by_name: f.createdByName,
  }));
  const { rows } = await db.executeQuery(statement(db, { project, flags: JSON.stringify(input) }));
  const inserted = new Map<string, FlagRow & { environments: NewFlagEnvironment[] }>();
  for (const row of rows) {
    if (row.name !== null) inserted.set(row.name, { ...toFlagRow(row), environments: row.environments });
  }
  return { maintenance: rows[0]?.maintenance ?? false, projectOpen: rows[0]?.open ?? false, inserted };
}

type Row = Parameters<typeof toFlagRow>[0] & {
  environments: NewFlagEnvironment[];
  maintenance: boolean;
  open: boolean;
};

const statement = compiledOnce(['project', 'flags'] as const, (db, v) =>
  sql<Row>`
    WITH mode AS (SELECT ${maintenanceIsOn()} AS maintenance),
    open AS (SELECT EXISTS (
      SELECT 1 FROM projects p WHERE p.id = ${v.project} AND p.archived_at IS NULL
        AND p.feature_limit IS NULL AND coalesce(p.feature_naming_pattern, '') = '') AS open),
    input AS (
      SELECT * FROM jsonb_to_recordset(${v.flags}::jsonb) AS i(k int, name text, type text, description text,
        impression_data boolean, by_id int, by_name text)),
    flag AS (
      INSERT INTO features (name, project, type, description, impression_data, created_by_user_id,
        created_by_name)
      SELECT i.name, ${v.project}::text, i.type, i.description, i.impression_data, i.by_id, i.by_name
      FROM input i WHERE NOT (SELECT maintenance FROM mode) AND (SELECT open FROM open)
      -- In name order, as every write to several flags (THE LOCK ORDER, lockFlag); the events
      -- keep the callers' order (k).
      ORDER BY i.name
      ON CONFLICT (name) DO NOTHING
      RETURNING name, project, type, description, stale, impression_data, created_at, archived_at),
    ${newFlagRows},
    recorded AS (${insertEventsFrom(sql`
      SELECT i.k AS n, 'feature-created' AS type, i.by_name AS created_by, i.by_id AS created_by_user_id,
        f.name AS feature_name, f.project, NULL::text AS environment, ${createdEventData} AS data,
        NULL::jsonb AS pre_data
      FROM flag f JOIN input i ON i.name = f.name`)})
    SELECT m.maintenance, o.open, f.*, (
      SELECT coalesce(json_agg(json_build_object('environment', a.environment, 'type', e.type,
        'sortOrder', e.sort_order) ORDER BY e.sort_order, e.name), '[]'::json)
      FROM added a JOIN environments e ON e.name = a.environment WHERE a.feature_name = f.name) AS environments
    FROM mode m CROSS JOIN open o LEFT JOIN flag f ON true`.compile(db),
);
