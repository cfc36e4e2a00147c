import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface ProdDates {
  name: string;
  type: string;
  created_at: Date;
  first_on: Date;
}

/**
 * The project's flags (archived ones too) that were ever enabled in a production-type environment,
 * with their creation and the first `feature-environment-enabled` event there (as Unleash reads
 * the time to production from its events).
 */
export async function timeToProdDates(db: Kysely<DB>, projectId: string): Promise<ProdDates[]> {
  const { rows } = await sql<ProdDates>`
    SELECT t.name, t.type, t.created_at, t.first_on FROM (
      SELECT f.name, f.type, f.created_at,
        (SELECT min(e.created_at) FROM events e JOIN environments env ON env.name = e.environment
          WHERE e.feature_name = f.name AND e.type = 'feature-environment-enabled' AND env.type = 'production') AS first_on
      FROM features f WHERE f.project = ${projectId}) t
    WHERE t.first_on IS NOT NULL
    ORDER BY t.name`.execute(db);
  return rows;
}
