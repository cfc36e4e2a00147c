import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface VariantCount {
  flag: string;
  variant: string;
  count: number;
}

/**
 * Adds one bucket's variant counts to the hourly variant counters (one statement, as `addMetrics`).
 */
export async function addVariantMetrics(
  db: Kysely<DB>,
  m: { appName: string; environment: string; hour: Date; counts: VariantCount[] },
): Promise<void> {
  if (m.counts.length === 0) return;
  const counts = JSON.stringify(m.counts);
  await sql`INSERT INTO client_metrics_env_variants (feature_name, app_name, environment, timestamp, variant, count)
    SELECT c.flag, ${m.appName}, ${m.environment}, ${m.hour}, c.variant, c.count
    FROM jsonb_to_recordset(${counts}::jsonb) AS c(flag text, variant text, count bigint)
    ON CONFLICT (feature_name, app_name, environment, timestamp, variant) DO UPDATE
      SET count = client_metrics_env_variants.count + EXCLUDED.count`.execute(db);
}

/** How many (name, application, environment) rows of unknown flag names are kept at most. */
export const UNKNOWN_FLAGS_KEPT = 1000;
/** How many unknown names of one metrics bucket are recorded at most. */
const UNKNOWN_PER_BUCKET = 100;

/** The names among `names` that a flag has (archived flags included). */
export async function existingFlagNames(db: Kysely<DB>, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await sql<{ name: string }>`SELECT name FROM features
    WHERE name IN (SELECT jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))`.execute(db);
  return new Set(rows.map((r) => r.name));
}

/**
 * Records flag names an SDK reported that no flag has: at most 100 per bucket, and the table keeps
 * the 1,000 most recently seen rows (older ones are dropped), so it stays bounded whatever SDKs send.
 */
export async function recordUnknownFlags(
  db: Kysely<DB>,
  r: { appName: string; environment: string; names: string[] },
): Promise<void> {
  if (r.names.length === 0) return;
  // Sorted: concurrent reports lock the rows in one order.
  const names = JSON.stringify([...new Set(r.names)].sort().slice(0, UNKNOWN_PER_BUCKET));
  await sql`INSERT INTO unknown_flags (name, app_name, environment, seen_at)
    SELECT n, ${r.appName}, ${r.environment}, now() FROM jsonb_array_elements_text(${names}::jsonb) AS n
    ON CONFLICT (name, app_name, environment) DO UPDATE SET seen_at = now()`.execute(db);
  await sql`DELETE FROM unknown_flags WHERE (name, app_name, environment) IN (
      SELECT name, app_name, environment FROM unknown_flags
      ORDER BY seen_at DESC, name, app_name, environment OFFSET ${UNKNOWN_FLAGS_KEPT})`.execute(db);
}
