import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Flag counts of a project computed live over its non-archived flags: stale ones, and
 * potentially stale ones (not stale, and flagged so or older than their type's lifetime).
 */
const healthCounts = (now: Date) => sql`
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS active_total,
      count(*) FILTER (WHERE f.stale)::int AS stale,
      count(*) FILTER (WHERE NOT f.stale AND (f.potentially_stale OR (ft.lifetime_days IS NOT NULL
        AND f.created_at <= ${now}::timestamptz - ft.lifetime_days * interval '1 day')))::int AS potentially_stale
    FROM features f LEFT JOIN feature_types ft ON ft.id = f.type
    WHERE f.project = p.id AND f.archived_at IS NULL
  ) h ON true`;

const memberCount = sql`(SELECT count(DISTINCT m.user_id)::int FROM (
    SELECT ru.user_id FROM role_user ru WHERE ru.project = p.id
    UNION SELECT gu.user_id FROM group_role gr JOIN group_user gu ON gu.group_id = gr.group_id
      WHERE gr.project = p.id) m)`;

const favorite = (userId: number | null) =>
  userId === null
    ? sql`false`
    : sql`EXISTS (SELECT 1 FROM favorite_projects fp WHERE fp.project = p.id AND fp.user_id = ${userId})`;

export interface ProjectListRow {
  id: string;
  name: string;
  description: string | null;
  mode: string;
  default_stickiness: string;
  created_at: Date;
  archived_at: Date | null;
  active_total: number;
  stale: number;
  potentially_stale: number;
  member_count: number;
  favorite: boolean;
  last_updated_at: Date | null;
  last_reported_flag_usage: Date | null;
  first_flag: string | null;
  any_seen: boolean;
  owners: { ownerType: string; name: string; email?: string | null; imageUrl?: string | null }[];
}

/** Every non-archived project with its live counts, by name. */
export async function listProjectRows(db: Kysely<DB>, userId: number | null, now: Date) {
  const result = await sql<ProjectListRow>`
    SELECT p.id, p.name, p.description, p.mode, p.default_stickiness, p.created_at, p.archived_at,
      h.active_total, h.stale, h.potentially_stale,
      ${memberCount} AS member_count,
      ${favorite(userId)} AS favorite,
      (SELECT e.created_at FROM events e WHERE e.project = p.id ORDER BY e.id DESC LIMIT 1) AS last_updated_at,
      (SELECT max(f.last_seen_at) FROM features f WHERE f.project = p.id) AS last_reported_flag_usage,
      (SELECT f.name FROM features f WHERE f.project = p.id ORDER BY f.created_at, f.name LIMIT 1) AS first_flag,
      EXISTS (SELECT 1 FROM features f WHERE f.project = p.id AND f.last_seen_at IS NOT NULL) AS any_seen,
      coalesce((SELECT jsonb_agg(o ORDER BY o->>'ownerType' DESC, o->>'name') FROM (
        SELECT jsonb_build_object('ownerType', 'user', 'name', coalesce(u.name, u.username, u.email, ''),
          'email', u.email, 'imageUrl', u.image_url) AS o
        FROM role_user ru JOIN roles r ON r.id = ru.role_id AND r.name = 'Owner'
          JOIN users u ON u.id = ru.user_id AND u.deleted_at IS NULL
        WHERE ru.project = p.id
        UNION ALL
        SELECT jsonb_build_object('ownerType', 'group', 'name', g.name)
        FROM group_role gr JOIN roles r ON r.id = gr.role_id AND r.name = 'Owner'
          JOIN groups g ON g.id = gr.group_id
        WHERE gr.project = p.id) os), '[{"ownerType":"system"}]'::jsonb) AS owners
    FROM projects p ${healthCounts(now)}
    WHERE p.archived_at IS NULL
    ORDER BY p.name, p.id`.execute(db);
  return result.rows;
}

export interface OverviewCounts {
  active_total: number;
  stale: number;
  potentially_stale: number;
  member_count: number;
  favorite: boolean;
  updated_at: Date | null;
  created_current: number;
  created_past: number;
  archived_current: number;
  archived_past: number;
  activity_current: number;
  activity_past: number;
  members_added: number;
  avg_time_to_prod: number | null;
}

/** Health, members and the 30-day window statistics of one project, computed live. */
export async function overviewCounts(db: Kysely<DB>, projectId: string, userId: number | null, now: Date) {
  const d30 = new Date(now.getTime() - 30 * 86_400_000);
  const d60 = new Date(now.getTime() - 60 * 86_400_000);
  const result = await sql<OverviewCounts>`
    SELECT h.active_total, h.stale, h.potentially_stale,
      ${memberCount} AS member_count,
      ${favorite(userId)} AS favorite,
      greatest(p.updated_at, (SELECT e.created_at FROM events e WHERE e.project = p.id ORDER BY e.id DESC LIMIT 1)) AS updated_at,
      (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.created_at >= ${d30}::timestamptz) AS created_current,
      (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.created_at >= ${d60}::timestamptz AND f.created_at < ${d30}::timestamptz) AS created_past,
      (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at >= ${d30}::timestamptz) AS archived_current,
      (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at >= ${d60}::timestamptz AND f.archived_at < ${d30}::timestamptz) AS archived_past,
      (SELECT count(*)::int FROM events e WHERE e.project = p.id AND e.created_at >= ${d30}::timestamptz) AS activity_current,
      (SELECT count(*)::int FROM events e WHERE e.project = p.id AND e.created_at >= ${d60}::timestamptz AND e.created_at < ${d30}::timestamptz) AS activity_past,
      ((SELECT count(*) FROM role_user ru WHERE ru.project = p.id AND ru.created_at >= ${d30}::timestamptz)
        + (SELECT count(*) FROM group_role gr WHERE gr.project = p.id AND gr.created_at >= ${d30}::timestamptz))::int AS members_added,
      (SELECT avg(extract(epoch FROM t.first_on - t.created_at) / 86400)::float8 FROM (
        SELECT f.created_at, (SELECT min(e.created_at) FROM events e JOIN environments env ON env.name = e.environment
          WHERE e.feature_name = f.name AND e.type = 'feature-environment-enabled' AND env.type = 'production') AS first_on
        FROM features f WHERE f.project = p.id AND f.type = 'release' AND f.created_at >= ${d30}::timestamptz) t
        WHERE t.first_on IS NOT NULL) AS avg_time_to_prod
    FROM projects p ${healthCounts(now)}
    WHERE p.id = ${projectId}`.execute(db);
  return result.rows[0];
}

export interface FlagOverviewRow {
  name: string;
  description: string | null;
  type: string;
  created_at: Date;
  archived_at: Date | null;
  stale: boolean;
  impression_data: boolean;
  last_seen_at: Date | null;
  favorite: boolean;
  environments: {
    name: string;
    enabled: boolean;
    type: string;
    sort_order: number;
    variant_count: number;
    last_seen_at: string | null;
    has_strategies: boolean;
    has_enabled_strategies: boolean;
  }[];
  segments: string[];
  tags: { type: string; value: string }[];
}

/** The project's flags (active or archived) with per-environment summaries, by name. */
export async function listFlagOverviews(
  db: Kysely<DB>,
  projectId: string,
  archived: boolean,
  userId: number | null,
) {
  const fav =
    userId === null
      ? sql`false`
      : sql`EXISTS (SELECT 1 FROM favorite_features ff WHERE ff.feature_name = f.name AND ff.user_id = ${userId})`;
  const result = await sql<FlagOverviewRow>`
    SELECT f.name, f.description, f.type, f.created_at, f.archived_at, f.stale, f.impression_data, f.last_seen_at,
      ${fav} AS favorite,
      coalesce((SELECT jsonb_agg(jsonb_build_object('name', fe.environment, 'enabled', fe.enabled, 'type', e.type,
          'sort_order', e.sort_order, 'variant_count', jsonb_array_length(fe.variants), 'last_seen_at', fe.last_seen_at,
          'has_strategies', EXISTS (SELECT 1 FROM feature_strategies s WHERE s.feature_name = fe.feature_name AND s.environment = fe.environment),
          'has_enabled_strategies', EXISTS (SELECT 1 FROM feature_strategies s WHERE s.feature_name = fe.feature_name
            AND s.environment = fe.environment AND NOT s.disabled)) ORDER BY e.sort_order, e.name)
        FROM feature_environments fe JOIN environments e ON e.name = fe.environment
          JOIN project_environments pe ON pe.environment_name = fe.environment AND pe.project_id = f.project
        WHERE fe.feature_name = f.name), '[]'::jsonb) AS environments,
      coalesce((SELECT jsonb_agg(DISTINCT sg.name) FROM feature_strategies s
          JOIN feature_strategy_segment fss ON fss.feature_strategy_id = s.id JOIN segments sg ON sg.id = fss.segment_id
        WHERE s.feature_name = f.name), '[]'::jsonb) AS segments,
      coalesce((SELECT jsonb_agg(jsonb_build_object('type', t.tag_type, 'value', t.tag_value) ORDER BY t.tag_type, t.tag_value)
        FROM feature_tag t WHERE t.feature_name = f.name), '[]'::jsonb) AS tags
    FROM features f
    WHERE f.project = ${projectId} AND (f.archived_at IS NOT NULL) = ${archived}
    ORDER BY f.name`.execute(db);
  return result.rows;
}
