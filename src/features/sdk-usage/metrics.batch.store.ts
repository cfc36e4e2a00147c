import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { UNKNOWN_FLAGS_KEPT } from './metrics.store.js';

/**
 * Set-based writes of a batch of SDK reports (metrics.batch.service.ts): one statement per table
 * and chunk, whatever the number of applications, environments and flags in the batch. Rows come
 * sorted by their key, so concurrent batches (other instances) lock rows in one order.
 */

const CHUNK = 5000;

async function inChunks<T>(rows: T[], write: (json: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await write(JSON.stringify(rows.slice(i, i + CHUNK)));
}

export interface CountRow {
  flag: string;
  app: string;
  env: string;
  hour: string;
  yes: number;
  no: number;
}

export async function addCounts(db: Kysely<DB>, rows: CountRow[]): Promise<void> {
  await inChunks(rows, (json) =>
    sql`INSERT INTO client_metrics_env (feature_name, app_name, environment, timestamp, yes, no)
      SELECT c.flag, c.app, c.env, c.hour, c.yes, c.no
      FROM jsonb_to_recordset(${json}::jsonb) AS c(flag text, app text, env text, hour timestamptz, yes bigint, no bigint)
      ON CONFLICT (feature_name, app_name, environment, timestamp) DO UPDATE
        SET yes = client_metrics_env.yes + EXCLUDED.yes, no = client_metrics_env.no + EXCLUDED.no`.execute(
      db,
    ),
  );
}

export interface VariantRow {
  flag: string;
  app: string;
  env: string;
  hour: string;
  variant: string;
  count: number;
}

export async function addVariantCounts(db: Kysely<DB>, rows: VariantRow[]): Promise<void> {
  await inChunks(rows, (json) =>
    sql`INSERT INTO client_metrics_env_variants (feature_name, app_name, environment, timestamp, variant, count)
      SELECT c.flag, c.app, c.env, c.hour, c.variant, c.count
      FROM jsonb_to_recordset(${json}::jsonb)
        AS c(flag text, app text, env text, hour timestamptz, variant text, count bigint)
      ON CONFLICT (feature_name, app_name, environment, timestamp, variant) DO UPDATE
        SET count = client_metrics_env_variants.count + EXCLUDED.count`.execute(db),
  );
}

export interface InstanceRow {
  app: string;
  env: string;
  id: string;
  seen: string;
  ip: string | null;
  type: string | null;
}

/**
 * Instances that reported metrics are seen then (Unleash does the same): the row is created when
 * the SDK never registered, else only its last-seen time (never backwards) and address change.
 */
export async function touchInstances(db: Kysely<DB>, rows: InstanceRow[]): Promise<void> {
  await inChunks(rows, (json) =>
    sql`INSERT INTO client_instances (app_name, environment, instance_id, last_seen, client_ip, sdk_type)
      SELECT c.app, c.env, c.id, c.seen, c.ip, c.type
      FROM jsonb_to_recordset(${json}::jsonb) AS c(app text, env text, id text, seen timestamptz, ip text, type text)
      ON CONFLICT (app_name, environment, instance_id) DO UPDATE
        SET last_seen = greatest(client_instances.last_seen, EXCLUDED.last_seen),
          client_ip = coalesce(EXCLUDED.client_ip, client_instances.client_ip)`.execute(db),
  );
}

export interface UnknownRow {
  name: string;
  app: string;
  env: string;
  seen: string;
}

/** Unknown flag names, then the table cut back to the most recently seen rows (bounded). */
export async function recordUnknown(db: Kysely<DB>, rows: UnknownRow[]): Promise<void> {
  if (rows.length === 0) return;
  await inChunks(rows, (json) =>
    sql`INSERT INTO unknown_flags (name, app_name, environment, seen_at)
      SELECT c.name, c.app, c.env, c.seen
      FROM jsonb_to_recordset(${json}::jsonb) AS c(name text, app text, env text, seen timestamptz)
      ON CONFLICT (name, app_name, environment) DO UPDATE
        SET seen_at = greatest(unknown_flags.seen_at, EXCLUDED.seen_at)`.execute(db),
  );
  await sql`DELETE FROM unknown_flags WHERE (name, app_name, environment) IN (
      SELECT name, app_name, environment FROM unknown_flags
      ORDER BY seen_at DESC, name, app_name, environment OFFSET ${UNKNOWN_FLAGS_KEPT})`.execute(db);
}
