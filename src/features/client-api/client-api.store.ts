import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface Registration {
  appName: string;
  instanceId: string;
  environment: string;
  sdkVersion: string | null;
  sdkType: string | null;
  strategies: string[];
  clientIp: string | null;
}

/** An SDK announcing itself: the application and the instance, upserted. */
export async function upsertRegistration(db: Kysely<DB>, r: Registration): Promise<void> {
  await sql`INSERT INTO client_applications (app_name, strategies, seen_at, updated_at)
    VALUES (${r.appName}, ${JSON.stringify(r.strategies)}, now(), now())
    ON CONFLICT (app_name) DO UPDATE SET strategies = EXCLUDED.strategies, seen_at = now(), updated_at = now()`.execute(
    db,
  );
  await sql`INSERT INTO client_instances (app_name, instance_id, environment, sdk_version, sdk_type, client_ip, last_seen)
    VALUES (${r.appName}, ${r.instanceId}, ${r.environment}, ${r.sdkVersion}, ${r.sdkType}, ${r.clientIp}, now())
    ON CONFLICT (app_name, environment, instance_id) DO UPDATE
      SET sdk_version = EXCLUDED.sdk_version, sdk_type = EXCLUDED.sdk_type, client_ip = EXCLUDED.client_ip,
        last_seen = now()`.execute(db);
}

export interface FlagCounts {
  flag: string;
  yes: number;
  no: number;
}

/**
 * Adds one metrics bucket to the hourly counters (one statement whatever the number of flags: the
 * counts travel as one JSON array). The service marks the flags as seen (flags slice).
 */
export async function addMetrics(
  db: Kysely<DB>,
  m: { appName: string; environment: string; hour: Date; counts: FlagCounts[] },
): Promise<void> {
  if (m.counts.length === 0) return;
  const counts = JSON.stringify(m.counts);
  await sql`INSERT INTO client_metrics_env (feature_name, app_name, environment, timestamp, yes, no)
    SELECT c.flag, ${m.appName}, ${m.environment}, ${m.hour}, c.yes, c.no
    FROM jsonb_to_recordset(${counts}::jsonb) AS c(flag text, yes bigint, no bigint)
    ON CONFLICT (feature_name, app_name, environment, timestamp) DO UPDATE
      SET yes = client_metrics_env.yes + EXCLUDED.yes, no = client_metrics_env.no + EXCLUDED.no`.execute(db);
}
