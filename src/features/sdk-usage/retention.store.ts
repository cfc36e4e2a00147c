import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface RetentionCutoffs {
  /** Instances last seen before this are deleted. */
  instancesBefore: Date;
  /** Hourly metrics, variant counts and unknown flag names older than this are deleted. */
  metricsBefore: Date;
}

export interface Removed {
  instances: number;
  metrics: number;
  variantMetrics: number;
  unknownFlags: number;
  /** Events past EVENT_RETENTION_DAYS (deleted by the events slice, in the same transaction). */
  events: number;
}

const deleted = async (db: Kysely<DB>, query: ReturnType<typeof sql>) =>
  Number((await query.execute(db)).numAffectedRows ?? 0);

/**
 * Deletes what SDKs reported before the cutoffs. Applications stay (Unleash keeps them, and their
 * admin-edited fields); an hourly row is deleted once its hour started before the metrics cutoff.
 */
export async function deleteExpiredClientData(
  db: Kysely<DB>,
  c: RetentionCutoffs,
): Promise<Omit<Removed, 'events'>> {
  return {
    instances: await deleted(db, sql`DELETE FROM client_instances WHERE last_seen < ${c.instancesBefore}`),
    metrics: await deleted(db, sql`DELETE FROM client_metrics_env WHERE timestamp < ${c.metricsBefore}`),
    variantMetrics: await deleted(
      db,
      sql`DELETE FROM client_metrics_env_variants WHERE timestamp < ${c.metricsBefore}`,
    ),
    unknownFlags: await deleted(db, sql`DELETE FROM unknown_flags WHERE seen_at < ${c.metricsBefore}`),
  };
}
