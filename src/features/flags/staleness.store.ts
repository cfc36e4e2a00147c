import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface StalenessChange {
  name: string;
  project: string;
  potentially_stale: boolean;
}

/**
 * Brings `features.potentially_stale` of every non-archived flag in line with its age: true once
 * the flag is at least its type's expected lifetime old (`feature_types.lifetime_days`; a type
 * without one never is), false otherwise (its type changed to one with a longer or no lifetime).
 * The flags that change are locked in name order first (the lock order), so the job cannot
 * deadlock with a write that locks several flags. Returns the flags whose value changed.
 */
export async function reconcilePotentiallyStale(db: Kysely<DB>, now: Date): Promise<StalenessChange[]> {
  const result = await sql<StalenessChange>`
    WITH due AS (
      SELECT f.name, (ft.lifetime_days IS NOT NULL
          AND f.created_at <= ${now}::timestamptz - ft.lifetime_days * interval '1 day') AS due
      FROM features f LEFT JOIN feature_types ft ON ft.id = f.type
      WHERE f.archived_at IS NULL
    ), locked AS (
      SELECT f.name, d.due FROM features f JOIN due d ON d.name = f.name
      WHERE f.potentially_stale IS DISTINCT FROM d.due
      ORDER BY f.name FOR UPDATE OF f
    )
    UPDATE features f SET potentially_stale = l.due FROM locked l
    WHERE f.name = l.name AND f.potentially_stale IS DISTINCT FROM l.due
    RETURNING f.name, f.project, f.potentially_stale`.execute(db);
  return result.rows;
}
