import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { settingMadeOnce } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';

/** This instance's id: made once, on first use, and kept in `settings`. */
export async function instanceId(db: Kysely<DB>): Promise<string> {
  return (await settingMadeOnce(db, 'instance.id', 'id', randomUUID())) ?? '';
}

export interface StatisticsRow {
  users: number;
  active_7: number;
  active_30: number;
  active_90: number;
  flags: number;
  projects: number;
  context_fields: number;
  roles: number;
  groups: number;
  environments: number;
  segments: number;
  strategies: number;
  exports: number;
  imports: number;
  apps_7: number;
  apps_30: number;
  apps_all: number;
  prod_30: number;
  prod_60: number;
  prod_90: number;
  tokens_admin: number;
  tokens_client: number;
  tokens_frontend: number;
  max_env_strategies: number;
  max_constraints: number;
  max_constraint_values: number;
}

/** Counts over the whole instance, read in one statement (each table read-only). */
export async function instanceStatistics(db: Kysely<DB>, now: Date) {
  const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
  const result = await sql<StatisticsRow>`
    SELECT
      (SELECT count(*)::int FROM users WHERE deleted_at IS NULL AND NOT is_service) AS users,
      (SELECT count(*)::int FROM users WHERE deleted_at IS NULL AND seen_at >= ${days(7)}::timestamptz) AS active_7,
      (SELECT count(*)::int FROM users WHERE deleted_at IS NULL AND seen_at >= ${days(30)}::timestamptz) AS active_30,
      (SELECT count(*)::int FROM users WHERE deleted_at IS NULL AND seen_at >= ${days(90)}::timestamptz) AS active_90,
      (SELECT count(*)::int FROM features WHERE archived_at IS NULL) AS flags,
      (SELECT count(*)::int FROM projects WHERE archived_at IS NULL) AS projects,
      (SELECT count(*)::int FROM context_fields) AS context_fields,
      (SELECT count(*)::int FROM roles) AS roles,
      (SELECT count(*)::int FROM groups) AS groups,
      (SELECT count(*)::int FROM environments) AS environments,
      (SELECT count(*)::int FROM segments) AS segments,
      (SELECT count(*)::int FROM strategies) AS strategies,
      (SELECT count(*)::int FROM events WHERE type = 'features-exported') AS exports,
      (SELECT count(*)::int FROM events WHERE type = 'features-imported') AS imports,
      (SELECT count(DISTINCT app_name)::int FROM client_instances WHERE last_seen >= ${days(7)}::timestamptz) AS apps_7,
      (SELECT count(DISTINCT app_name)::int FROM client_instances WHERE last_seen >= ${days(30)}::timestamptz) AS apps_30,
      (SELECT count(*)::int FROM client_applications) AS apps_all,
      (SELECT count(*)::int FROM events e JOIN environments env ON env.name = e.environment
        WHERE env.type = 'production' AND e.created_at >= ${days(30)}::timestamptz) AS prod_30,
      (SELECT count(*)::int FROM events e JOIN environments env ON env.name = e.environment
        WHERE env.type = 'production' AND e.created_at >= ${days(60)}::timestamptz) AS prod_60,
      (SELECT count(*)::int FROM events e JOIN environments env ON env.name = e.environment
        WHERE env.type = 'production' AND e.created_at >= ${days(90)}::timestamptz) AS prod_90,
      (SELECT count(*)::int FROM api_tokens WHERE type = 'admin') AS tokens_admin,
      (SELECT count(*)::int FROM api_tokens WHERE type = 'client') AS tokens_client,
      (SELECT count(*)::int FROM api_tokens WHERE type = 'frontend') AS tokens_frontend,
      coalesce((SELECT max(n)::int FROM (SELECT count(*) AS n FROM feature_strategies GROUP BY feature_name, environment) x), 0) AS max_env_strategies,
      coalesce((SELECT max(jsonb_array_length(constraints))::int FROM feature_strategies), 0) AS max_constraints,
      coalesce((SELECT max(jsonb_array_length(c->'values'))::int FROM feature_strategies s,
        jsonb_array_elements(s.constraints) c WHERE jsonb_typeof(c->'values') = 'array'), 0) AS max_constraint_values`.execute(
    db,
  );
  return result.rows[0] as StatisticsRow;
}
