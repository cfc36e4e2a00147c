import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Reads of the application views: the sdk-usage slice's tables (registrations, instances, hourly
 * metrics) joined with flags and strategy definitions. Nothing here writes.
 */

export interface ApplicationRow {
  appName: string;
  description: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
  strategies: string[];
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

const APP_COLUMNS = sql`app_name AS "appName", description, url, color, icon, strategies,
  created_by AS "createdBy", created_at AS "createdAt", updated_at AS "updatedAt"`;

const parseStrategies = (r: ApplicationRow): ApplicationRow => ({
  ...r,
  strategies: typeof r.strategies === 'string' ? JSON.parse(r.strategies) : (r.strategies ?? []),
});

export async function findApplication(db: Kysely<DB>, appName: string): Promise<ApplicationRow | undefined> {
  const { rows } = await sql<ApplicationRow>`SELECT ${APP_COLUMNS} FROM client_applications
    WHERE app_name = ${appName}`.execute(db);
  return rows[0] && parseStrategies(rows[0]);
}

/** Whether an SDK ever announced the application or reported metrics for it. */
export async function applicationSeen(db: Kysely<DB>, appName: string): Promise<boolean> {
  const { rows } = await sql<{ seen: boolean }>`SELECT
      EXISTS (SELECT 1 FROM client_applications WHERE app_name = ${appName})
      OR EXISTS (SELECT 1 FROM client_instances WHERE app_name = ${appName})
      OR EXISTS (SELECT 1 FROM client_metrics_env WHERE app_name = ${appName})
      OR EXISTS (SELECT 1 FROM unknown_flags WHERE app_name = ${appName}) AS seen`.execute(db);
  return rows[0]?.seen === true;
}

export interface ListOptions {
  query?: string;
  offset: number;
  limit: number;
  sortBy: 'appName' | 'createdAt' | 'updatedAt';
  sortOrder: 'asc' | 'desc';
}

const SORT_COLUMNS = { appName: 'app_name', createdAt: 'created_at', updatedAt: 'updated_at' } as const;

export async function listApplications(
  db: Kysely<DB>,
  o: ListOptions,
): Promise<{ total: number; rows: ApplicationRow[] }> {
  const where = o.query ? sql`WHERE strpos(lower(app_name), lower(${o.query})) > 0` : sql``;
  const direction = sql.raw(o.sortOrder === 'desc' ? 'DESC' : 'ASC');
  const order = sql`${sql.ref(SORT_COLUMNS[o.sortBy])} ${direction} NULLS LAST, app_name ${direction}`;
  const [{ rows: count }, { rows }] = await Promise.all([
    sql<{ total: number }>`SELECT count(*)::int AS total FROM client_applications ${where}`.execute(db),
    sql<ApplicationRow>`SELECT ${APP_COLUMNS} FROM client_applications ${where}
      ORDER BY ${order} OFFSET ${o.offset} LIMIT ${o.limit}`.execute(db),
  ]);
  return { total: count[0]?.total ?? 0, rows: rows.map(parseStrategies) };
}

/** Projects (of existing flags) and environments each application reported flags of since `since`. */
export async function usageOf(
  db: Kysely<DB>,
  appNames: string[],
  since: Date,
): Promise<{ appName: string; project: string; environment: string }[]> {
  if (appNames.length === 0) return [];
  const { rows } = await sql<{ appName: string; project: string; environment: string }>`
    SELECT DISTINCT m.app_name AS "appName", f.project, m.environment
    FROM client_metrics_env m JOIN features f ON f.name = m.feature_name
    WHERE m.app_name = ANY(${appNames}::text[]) AND m.timestamp >= ${since}
    ORDER BY f.project, m.environment`.execute(db);
  return rows;
}

export interface InstanceRow {
  appName: string;
  instanceId: string;
  environment: string;
  sdkVersion: string | null;
  sdkType: string | null;
  clientIp: string | null;
  lastSeen: Date;
  createdAt: Date;
}

export async function instancesOf(db: Kysely<DB>, appName: string, since?: Date): Promise<InstanceRow[]> {
  const recent = since ? sql`AND last_seen >= ${since}` : sql``;
  const { rows } = await sql<InstanceRow>`SELECT app_name AS "appName", instance_id AS "instanceId",
      environment, sdk_version AS "sdkVersion", sdk_type AS "sdkType", client_ip AS "clientIp",
      last_seen AS "lastSeen", created_at AS "createdAt"
    FROM client_instances WHERE app_name = ${appName} ${recent}
    ORDER BY last_seen DESC, environment, instance_id LIMIT 10000`.execute(db);
  return rows;
}

export interface ReportedFlagRow {
  environment: string;
  featureName: string;
  /** Null when no flag has this name. */
  project: string | null;
}

/**
 * The flag names an application reported since `since`, per environment: those of flags from the
 * hourly metrics (with their project), unknown ones (project null) from `unknown_flags`.
 */
export async function reportedFlags(
  db: Kysely<DB>,
  appName: string,
  since: Date,
): Promise<ReportedFlagRow[]> {
  const { rows } = await sql<ReportedFlagRow>`
    SELECT DISTINCT m.environment, m.feature_name AS "featureName", f.project
    FROM client_metrics_env m JOIN features f ON f.name = m.feature_name
    WHERE m.app_name = ${appName} AND m.timestamp >= ${since}
    UNION
    SELECT u.environment, u.name, NULL FROM unknown_flags u
    WHERE u.app_name = ${appName} AND u.seen_at >= ${since}
      AND NOT EXISTS (SELECT 1 FROM features f WHERE f.name = u.name)
    ORDER BY 1, 2`.execute(db);
  return rows;
}

export interface SeenFlagRow {
  name: string;
  description: string | null;
  type: string;
  project: string;
  stale: boolean;
  createdAt: Date;
  impressionData: boolean;
  archived: boolean;
}

export async function seenFlags(db: Kysely<DB>, appName: string, since: Date): Promise<SeenFlagRow[]> {
  const { rows } = await sql<SeenFlagRow>`
    SELECT f.name, f.description, f.type, f.project, f.stale, f.created_at AS "createdAt",
      f.impression_data AS "impressionData", (f.archived_at IS NOT NULL) AS archived
    FROM features f
    WHERE f.name IN (SELECT feature_name FROM client_metrics_env WHERE app_name = ${appName} AND timestamp >= ${since})
    ORDER BY f.name`.execute(db);
  return rows;
}

export interface StrategyDefinitionRow {
  name: string;
  title: string | null;
  description: string | null;
  builtIn: boolean;
  deprecated: boolean;
  parameters: { name: string; type: string; description: string; required: boolean }[] | string;
}

export async function strategyDefinitions(db: Kysely<DB>, names: string[]): Promise<StrategyDefinitionRow[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<StrategyDefinitionRow>`SELECT name, title, description, built_in AS "builtIn",
      deprecated, parameters FROM strategies WHERE name = ANY(${names}::text[])
    ORDER BY sort_order, name`.execute(db);
  return rows;
}

export interface MetricsRow {
  featureName: string;
  appName: string;
  environment: string;
  timestamp: Date;
  yes: number;
  no: number;
  variants: Record<string, number> | string | null;
}

/** Hourly counts of a flag since `since`, with the variant counts of the same hour, oldest first. */
export async function flagMetrics(db: Kysely<DB>, name: string, since: Date): Promise<MetricsRow[]> {
  const { rows } = await sql<MetricsRow>`
    SELECT m.feature_name AS "featureName", m.app_name AS "appName", m.environment, m.timestamp,
      m.yes::float8 AS yes, m.no::float8 AS no,
      (SELECT jsonb_object_agg(v.variant, v.count::float8) FROM client_metrics_env_variants v
        WHERE v.feature_name = m.feature_name AND v.app_name = m.app_name
          AND v.environment = m.environment AND v.timestamp = m.timestamp) AS variants
    FROM client_metrics_env m
    WHERE m.feature_name = ${name} AND m.timestamp >= ${since}
    ORDER BY m.timestamp, m.environment, m.app_name
    LIMIT 100000`.execute(db);
  return rows;
}

export interface UnknownFlagRow {
  name: string;
  appName: string;
  environment: string;
  seenAt: Date;
}

/** Flag names reported since `since` that no flag has (kept bounded by the sdk-usage slice). */
export async function unknownFlags(db: Kysely<DB>, since: Date): Promise<UnknownFlagRow[]> {
  const { rows } = await sql<UnknownFlagRow>`
    SELECT u.name, u.app_name AS "appName", u.environment, u.seen_at AS "seenAt"
    FROM unknown_flags u
    WHERE u.seen_at >= ${since} AND NOT EXISTS (SELECT 1 FROM features f WHERE f.name = u.name)
    ORDER BY u.seen_at DESC, u.name, u.app_name, u.environment`.execute(db);
  return rows;
}
