import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Reads of SDK instances and of which applications use a project: the sdk-usage slice's tables
 * (instances, hourly metrics) joined with flags. Nothing here writes.
 */

export interface EnvironmentInstanceRow {
  instanceId: string;
  sdkVersion: string | null;
  clientIp: string | null;
  lastSeen: Date;
}

/** Instances of the application in the environment seen since `since`, most recent first. */
export async function environmentInstances(
  db: Kysely<DB>,
  appName: string,
  environment: string,
  since: Date,
): Promise<EnvironmentInstanceRow[]> {
  const { rows } = await sql<EnvironmentInstanceRow>`SELECT instance_id AS "instanceId",
      sdk_version AS "sdkVersion", client_ip AS "clientIp", last_seen AS "lastSeen"
    FROM client_instances
    WHERE app_name = ${appName} AND environment = ${environment} AND last_seen >= ${since}
    ORDER BY last_seen DESC, instance_id LIMIT 1000`.execute(db);
  return rows;
}

export interface SdkApplicationsRow {
  sdkVersion: string;
  applications: string[];
}

/**
 * Each SDK version instances report with the applications running it, optionally only
 * applications that reported flags of `project` (the hourly metrics still kept).
 */
export async function applicationsBySdk(db: Kysely<DB>, project?: string): Promise<SdkApplicationsRow[]> {
  const ofProject =
    project === undefined
      ? sql``
      : sql`AND ci.app_name IN (SELECT m.app_name FROM client_metrics_env m
          JOIN features f ON f.name = m.feature_name WHERE f.project = ${project})`;
  const { rows } = await sql<SdkApplicationsRow>`SELECT ci.sdk_version AS "sdkVersion",
      array_agg(DISTINCT ci.app_name COLLATE "C" ORDER BY ci.app_name COLLATE "C") AS applications
    FROM client_instances ci WHERE ci.sdk_version IS NOT NULL ${ofProject}
    GROUP BY ci.sdk_version ORDER BY ci.sdk_version COLLATE "C"`.execute(db);
  return rows;
}

export async function projectExists(db: Kysely<DB>, project: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`SELECT EXISTS (
      SELECT 1 FROM projects WHERE id = ${project}) AS found`.execute(db);
  return rows[0]?.found === true;
}

/** A page row; when the page is empty, one row of nulls carrying the total. */
export interface ProjectApplicationRow {
  appName: string | null;
  environment: string | null;
  instanceId: string | null;
  sdkVersion: string | null;
  /** Applications matching the query in all pages. */
  total: number;
}

/**
 * One page of the applications that reported flags of the project, as Unleash's
 * `getApplicationsByProject`: one row per (application, environment, instance), the query matching
 * any of name, environment, instance id or SDK version (case-insensitive, per row), applications
 * ranked by name in the sort order and paged by that rank.
 */
export async function projectApplications(
  db: Kysely<DB>,
  o: { project: string; query?: string; offset: number; limit: number; sortOrder: 'asc' | 'desc' },
): Promise<ProjectApplicationRow[]> {
  const direction = sql.raw(o.sortOrder === 'desc' ? 'DESC' : 'ASC');
  const matches =
    o.query === undefined
      ? sql``
      : sql`WHERE strpos(lower(a.app_name), lower(${o.query})) > 0
          OR strpos(lower(a.environment), lower(${o.query})) > 0
          OR strpos(lower(coalesce(ci.instance_id, '')), lower(${o.query})) > 0
          OR strpos(lower(coalesce(ci.sdk_version, '')), lower(${o.query})) > 0`;
  const { rows } = await sql<ProjectApplicationRow>`
    WITH applications AS (
      SELECT DISTINCT m.app_name, m.environment FROM client_metrics_env m
      JOIN features f ON f.name = m.feature_name WHERE f.project = ${o.project}
    ), ranked AS (
      SELECT a.app_name, a.environment, ci.instance_id, ci.sdk_version,
        dense_rank() OVER (ORDER BY a.app_name COLLATE "C" ${direction}) AS rank
      FROM applications a
      LEFT JOIN client_instances ci ON ci.app_name = a.app_name AND ci.environment = a.environment
      ${matches}
    )
    SELECT t.total, p."appName", p.environment, p."instanceId", p."sdkVersion"
    FROM (SELECT coalesce(max(rank), 0)::int AS total FROM ranked) t
    LEFT JOIN (
      SELECT app_name AS "appName", environment, instance_id AS "instanceId", sdk_version AS "sdkVersion", rank
      FROM ranked WHERE rank > ${o.offset} AND rank <= ${o.offset + o.limit}
    ) p ON true
    ORDER BY p.rank, p.environment, p."instanceId"`.execute(db);
  return rows;
}
