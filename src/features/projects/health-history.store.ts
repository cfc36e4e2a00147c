import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { healthCounts } from './overview.store.js';

/** The table this slice owns (migrations/0029_project_health_daily.sql); only this slice writes it. */
export type HealthHistoryTables = {
  project_health_daily: {
    project_id: string;
    /** A UTC day, written and read as `YYYY-MM-DD` text (never a Date: drivers shift those). */
    day: string;
    health: number;
    flags: number;
    stale: number;
    potentially_stale: number;
  };
};

export const tables = (db: Kysely<DB>) => db.withTables<HealthHistoryTables>();

/** A project's flag counts behind its health, as the overview computes them (overview.store.ts). */
export interface HealthCounts {
  project_id: string;
  flags: number;
  stale: number;
  potentially_stale: number;
}

/** The same counts as the overview and the health report, so the chart agrees with them. */
const counts = healthCounts;

/**
 * The counts of every non-archived project now, each project's row held (FOR KEY SHARE) for the
 * rest of the transaction so it cannot be deleted before its day is written. Projects another
 * transaction holds for update (being written or deleted) are skipped: the job never waits for
 * them, so it takes part in no lock cycle, and records them at its next round.
 */
export async function lockedHealthCounts(db: Kysely<DB>): Promise<HealthCounts[]> {
  const result = await sql<HealthCounts>`
    SELECT p.id AS project_id, h.active_total AS flags, h.stale, h.potentially_stale
    FROM projects p ${counts}
    WHERE p.archived_at IS NULL
    ORDER BY p.id
    FOR KEY SHARE OF p SKIP LOCKED`.execute(db);
  return result.rows;
}

/** One project's counts now; undefined when there is no such project. */
export async function healthCountsOf(db: Kysely<DB>, projectId: string): Promise<HealthCounts | undefined> {
  const result = await sql<HealthCounts>`
    SELECT p.id AS project_id, h.active_total AS flags, h.stale, h.potentially_stale
    FROM projects p ${counts}
    WHERE p.id = ${projectId}`.execute(db);
  return result.rows[0];
}

export interface HealthDay extends HealthCounts {
  health: number;
}

/**
 * Writes the figures of `day` for the projects given (one statement for any number), replacing
 * what an earlier round wrote that day; a row whose figures did not change is left as it is.
 */
export async function upsertHealthDays(db: Kysely<DB>, day: string, rows: HealthDay[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO project_health_daily AS d (project_id, day, health, flags, stale, potentially_stale)
    SELECT x.project_id, ${day}::date, x.health, x.flags, x.stale, x.potentially_stale
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS x(project_id text, health int, flags int, stale int, potentially_stale int)
    ON CONFLICT (project_id, day) DO UPDATE SET
      health = excluded.health, flags = excluded.flags, stale = excluded.stale,
      potentially_stale = excluded.potentially_stale
    WHERE (d.health, d.flags, d.stale, d.potentially_stale)
      IS DISTINCT FROM (excluded.health, excluded.flags, excluded.stale, excluded.potentially_stale)`.execute(
    db,
  );
}

/** The recorded days of a project from `from` up to, not including, `before`, oldest first. */
export async function listHealthDays(db: Kysely<DB>, projectId: string, from: string, before: string) {
  return tables(db)
    .selectFrom('project_health_daily')
    .select([
      sql<string>`to_char(day, 'YYYY-MM-DD')`.as('date'),
      'health',
      'flags',
      'stale',
      'potentially_stale',
    ])
    .where('project_id', '=', projectId)
    .where('day', '>=', sql<string>`${from}::date`)
    .where('day', '<', sql<string>`${before}::date`)
    .orderBy('day')
    .execute();
}
