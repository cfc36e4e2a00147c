import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** Flags per current lifecycle stage (`features.lifecycle_stage`, kept by a trigger). */
export async function countLifecycleStages(db: Kysely<DB>): Promise<Record<string, number>> {
  const result = await sql<{ stage: string; count: number }>`
    SELECT lifecycle_stage AS stage, count(*)::int AS count FROM features GROUP BY lifecycle_stage`.execute(
    db,
  );
  return Object.fromEntries(result.rows.map((r) => [r.stage, r.count]));
}
