import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { type FlagRow, flagColumns, toFlagRow } from '../flag-rows/index.js';

/** Rows per statement in the batch writes below: bounds one statement's JSON parameter. */
const CHUNK = 2000;

const chunks = <T>(items: T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

/** A list parameter as JSON text; `IN (SELECT jsonb_array_elements_text(…))` reads it (any length). */
const list = (names: string[]) => JSON.stringify(names);

/**
 * The locks of a change to many flags of one project, in the lock order (see lockFlag): the
 * project's row (FOR UPDATE: new flags are counted against its limit), then the named flags that
 * exist, in name order. Returns whether the project exists and is active.
 */
export async function lockProjectAndFlags(
  db: Kysely<DB>,
  project: string,
  names: string[],
): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('id', '=', project)
    .where('archived_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (names.length > 0) {
    await sql`SELECT name FROM features WHERE name IN (SELECT jsonb_array_elements_text(${list(names)}::jsonb))
      ORDER BY name FOR UPDATE`.execute(db);
  }
  return row !== undefined;
}

/** The named flags that exist (archived or not), by name. */
export async function findFlags(db: Kysely<DB>, names: string[]): Promise<Map<string, FlagRow>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('features')
    .select(flagColumns)
    .where('name', 'in', sql<string>`(SELECT jsonb_array_elements_text(${list(names)}::jsonb))`)
    .execute();
  return new Map(rows.map((r) => [r.name, toFlagRow(r)]));
}

export interface BatchFlag {
  name: string;
  type: string;
  description: string | null;
  stale: boolean;
  impressionData: boolean;
}

/** A new flag that is also turned on in an environment: it enters `pre-live` (and `live`) at once. */
export interface LiveAt {
  production: boolean;
  at: Date;
}

/**
 * Inserts new flags of one project, as insertFlag does one: a disabled environment row per project
 * environment and the `initial` lifecycle stage, plus `pre-live` (and `live`) for the flags in
 * `live`, which the caller turns on in an environment (written here with the flag, so the flag's
 * current stage is right from its insert instead of being updated once per stage). Names already
 * taken are skipped; returns the flags inserted.
 */
export async function insertFlags(
  db: Kysely<DB>,
  project: string,
  flags: BatchFlag[],
  by: { userId: number; name: string },
  live?: { flags: Set<string> } & LiveAt,
): Promise<FlagRow[]> {
  const inserted: FlagRow[] = [];
  const stageOf = (name: string) =>
    live?.flags.has(name) ? (live.production ? 'live' : 'pre-live') : 'initial';
  for (const part of chunks(flags)) {
    const rows = JSON.stringify(
      part.map((f) => ({
        name: f.name,
        type: f.type,
        description: f.description,
        stale: f.stale,
        impression_data: f.impressionData,
        stage: stageOf(f.name),
      })),
    );
    const { rows: added } = await sql<{ name: string; created_at: Date }>`
      INSERT INTO features (name, project, type, description, stale, impression_data, created_by_user_id,
        created_by_name, lifecycle_stage)
      SELECT r.name, ${project}, r.type, r.description, r.stale, r.impression_data, ${by.userId}, ${by.name},
        r.stage
      FROM jsonb_to_recordset(${rows}::jsonb)
        AS r(name text, type text, description text, stale boolean, impression_data boolean, stage text)
      ON CONFLICT (name) DO NOTHING
      RETURNING name, created_at`.execute(db);
    const names = added.map((r) => r.name);
    await sql`INSERT INTO feature_environments (feature_name, environment)
      SELECT f.name, pe.environment_name
      FROM (SELECT jsonb_array_elements_text(${list(names)}::jsonb) AS name) f
      CROSS JOIN project_environments pe WHERE pe.project_id = ${project}`.execute(db);
    const stages = names.flatMap((name) => {
      const stage = stageOf(name);
      if (stage === 'initial' || !live) return [{ f: name, s: 'initial', at: null }];
      const at = live.at.toISOString();
      return [
        { f: name, s: 'initial', at: null },
        { f: name, s: 'pre-live', at },
        ...(stage === 'live' ? [{ f: name, s: 'live', at }] : []),
      ];
    });
    await sql`INSERT INTO feature_lifecycles (feature_name, stage, created_at)
      SELECT r.f, r.s, coalesce(r.at, now())
      FROM jsonb_to_recordset(${JSON.stringify(stages)}::jsonb) AS r(f text, s text, at timestamptz)`.execute(
      db,
    );
    const byName = new Map(part.map((f) => [f.name, f]));
    for (const r of added) {
      const f = byName.get(r.name) as BatchFlag;
      inserted.push({
        name: f.name,
        project,
        type: f.type,
        description: f.description,
        stale: f.stale,
        impressionData: f.impressionData,
        createdAt: new Date(r.created_at),
        archivedAt: null,
      });
    }
  }
  return inserted;
}

/** Writes type, description, stale and impression data of existing flags. */
export async function updateFlags(db: Kysely<DB>, flags: BatchFlag[]): Promise<void> {
  for (const part of chunks(flags)) {
    const rows = JSON.stringify(
      part.map((f) => ({
        name: f.name,
        type: f.type,
        description: f.description,
        stale: f.stale,
        impression_data: f.impressionData,
      })),
    );
    await sql`UPDATE features f SET type = r.type, description = r.description, stale = r.stale,
        impression_data = r.impression_data
      FROM jsonb_to_recordset(${rows}::jsonb)
        AS r(name text, type text, description text, stale boolean, impression_data boolean)
      WHERE f.name = r.name`.execute(db);
  }
}

/**
 * Locks every project row (id order), then every flag row (name order): the lock order of a change
 * that may touch any flag (the state import's drop).
 */
export async function lockAllProjectsAndFlags(db: Kysely<DB>): Promise<void> {
  await sql`SELECT id FROM projects ORDER BY id FOR UPDATE`.execute(db);
  await sql`SELECT name FROM features ORDER BY name FOR UPDATE`.execute(db);
}

/**
 * Deletes every flag, archived or not, with what hangs off it (environments, strategies and their
 * segment links, tags, dependencies, lifecycle: the foreign keys cascade), after
 * lockAllProjectsAndFlags. Returns the names deleted.
 */
export async function deleteAllFlags(db: Kysely<DB>): Promise<string[]> {
  await lockAllProjectsAndFlags(db);
  const rows = await sql<{ name: string }>`DELETE FROM features RETURNING name`.execute(db);
  return rows.rows.map((r) => r.name);
}
