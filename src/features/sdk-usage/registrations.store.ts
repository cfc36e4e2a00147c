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
  /** The service's clock (injected), so retention and the recent-instance windows agree with it. */
  seenAt: Date;
}

/** An SDK announcing itself: the application and the instance, upserted. */
export async function upsertRegistration(db: Kysely<DB>, r: Registration): Promise<void> {
  await sql`INSERT INTO client_applications (app_name, strategies, seen_at, updated_at)
    VALUES (${r.appName}, ${JSON.stringify(r.strategies)}, ${r.seenAt}, ${r.seenAt})
    ON CONFLICT (app_name) DO UPDATE SET strategies = EXCLUDED.strategies, seen_at = EXCLUDED.seen_at,
      updated_at = EXCLUDED.updated_at`.execute(db);
  await sql`INSERT INTO client_instances (app_name, instance_id, environment, sdk_version, sdk_type, client_ip, last_seen)
    VALUES (${r.appName}, ${r.instanceId}, ${r.environment}, ${r.sdkVersion}, ${r.sdkType}, ${r.clientIp}, ${r.seenAt})
    ON CONFLICT (app_name, environment, instance_id) DO UPDATE
      SET sdk_version = EXCLUDED.sdk_version, sdk_type = EXCLUDED.sdk_type, client_ip = EXCLUDED.client_ip,
        last_seen = EXCLUDED.last_seen`.execute(db);
}
