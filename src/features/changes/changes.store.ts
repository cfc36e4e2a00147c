import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { PreviewEvent } from './changes.applier.js';

/**
 * Points this transaction's unqualified `events` at a temporary table of the same shape with its
 * own id sequence (PostgreSQL looks in pg_temp first), so the events a check records are read back
 * and vanish with the rollback, and the log's ids have no gap from it (the snapshot and the addon
 * delivery read gaps as commits still to come).
 */
export async function shadowEvents(tx: Db): Promise<void> {
  await sql`CREATE TEMPORARY TABLE events (LIKE public.events INCLUDING DEFAULTS INCLUDING IDENTITY) ON COMMIT DROP`.execute(
    tx,
  );
}

export async function shadowedEvents(tx: Db): Promise<PreviewEvent[]> {
  const rows = await tx
    .selectFrom('events')
    .select(['type', 'feature_name', 'project', 'environment', 'data', 'pre_data'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    type: r.type,
    featureName: r.feature_name,
    project: r.project,
    environment: r.environment,
    data: r.data,
    preData: r.pre_data,
  }));
}
