import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

const KEY = 'maintenance.mode';

/**
 * Whether maintenance mode is on, as an SQL expression, for writes that check it within their own
 * statement (see `maintenanceGuard`): no round trip of its own, and no gap between check and write.
 */
export const maintenanceIsOn = () =>
  sql<boolean>`coalesce((SELECT (content->>'enabled')::boolean FROM settings WHERE name = ${KEY}), false)`;

export async function readMaintenance(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ enabled: boolean }>`SELECT ${maintenanceIsOn()} AS enabled`.execute(db);
  return result.rows[0]?.enabled ?? false;
}

/** Sets the mode; answers the mode before, read under the row's lock. */
export async function writeMaintenance(db: Kysely<DB>, enabled: boolean): Promise<boolean> {
  await sql`INSERT INTO settings (name, content) VALUES (${KEY}, '{"enabled": false}') ON CONFLICT DO NOTHING`.execute(
    db,
  );
  const before = await sql<{ enabled: boolean }>`
    SELECT coalesce((content->>'enabled')::boolean, false) AS enabled FROM settings WHERE name = ${KEY} FOR UPDATE`.execute(
    db,
  );
  await sql`UPDATE settings SET content = jsonb_build_object('enabled', ${enabled}::boolean) WHERE name = ${KEY}`.execute(
    db,
  );
  return before.rows[0]?.enabled ?? false;
}
