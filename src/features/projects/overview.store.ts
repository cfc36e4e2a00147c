import { type Kysely, sql } from 'kysely';
import { likeLiteral } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';

/**
 * Flag counts of a project computed when asked over its non-archived flags: stale ones, and
 * potentially stale ones (not stale, and marked so by the staleness job: see the flags slice's
 * staleness.service.ts), so the flag, the overview, the health report and search agree.
 */
export const healthCounts = sql`
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS active_total,
      count(*) FILTER (WHERE f.stale)::int AS stale,
      count(*) FILTER (WHERE NOT f.stale AND f.potentially_stale)::int AS potentially_stale
    FROM features f
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
export async function listProjectRows(db: Kysely<DB>, userId: number | null) {
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
    FROM projects p ${healthCounts}
    WHERE p.archived_at IS NULL
    ORDER BY p.name, p.id`.execute(db);
  return result.rows;
}

export interface OverviewCounts {
  active_total: number;
  stale: number;
  potentially_stale: number;
  member_count: number;
  updated_at: Date | null;
}

/** Health counts, members and the last change of one project: what only a write changes. */
export async function overviewCounts(db: Kysely<DB>, projectId: string) {
  const result = await sql<OverviewCounts>`
    SELECT h.active_total, h.stale, h.potentially_stale,
      ${memberCount} AS member_count,
      greatest(p.updated_at, (SELECT e.created_at FROM events e WHERE e.project = p.id ORDER BY e.id DESC LIMIT 1)) AS updated_at
    FROM projects p ${healthCounts}
    WHERE p.id = ${projectId}`.execute(db);
  return result.rows[0];
}

export interface WindowStats {
  created_current: number;
  created_past: number;
  archived_current: number;
  archived_past: number;
  activity_current: number;
  activity_past: number;
  members_added: number;
  avg_time_to_prod: number | null;
  /** The last moment (epoch ms) these numbers hold for unchanged data; null: for ever. */
  until_ms: number | null;
}

/**
 * The 30-day window statistics of one project at `now`: the current window is [now-30d, now],
 * the past one [now-60d, now-30d). With the data unchanged they stay the same until the earliest
 * timestamp of a window leaves it (ts + 30 days for the current window, ts + 60 days for the past
 * one), which `until_ms` gives, so they can be kept until then (ADR 0011).
 */
export async function windowStats(db: Kysely<DB>, projectId: string, now: Date) {
  const d30 = new Date(now.getTime() - 30 * 86_400_000);
  const d60 = new Date(now.getTime() - 60 * 86_400_000);
  const current = (table: string, column: string, filter: string) =>
    sql`(SELECT count(*)::int FROM ${sql.table(table)} x WHERE ${sql.raw(filter)} AND x.${sql.ref(column)} >= ${d30}::timestamptz)`;
  const past = (table: string, column: string, filter: string) =>
    sql`(SELECT count(*)::int FROM ${sql.table(table)} x WHERE ${sql.raw(filter)} AND x.${sql.ref(column)} >= ${d60}::timestamptz AND x.${sql.ref(column)} < ${d30}::timestamptz)`;
  // The first moment a count changes: its earliest timestamp in the window plus the window's end.
  const leaves = (table: string, column: string, filter: string) => sql`
    (SELECT min(x.${sql.ref(column)}) FROM ${sql.table(table)} x WHERE ${sql.raw(filter)} AND x.${sql.ref(column)} >= ${d30}::timestamptz) + interval '30 days',
    (SELECT min(x.${sql.ref(column)}) FROM ${sql.table(table)} x WHERE ${sql.raw(filter)} AND x.${sql.ref(column)} >= ${d60}::timestamptz AND x.${sql.ref(column)} < ${d30}::timestamptz) + interval '60 days'`;
  const flags = 'x.project = p.id';
  const result = await sql<WindowStats>`
    SELECT
      ${current('features', 'created_at', flags)} AS created_current,
      ${past('features', 'created_at', flags)} AS created_past,
      ${current('features', 'archived_at', flags)} AS archived_current,
      ${past('features', 'archived_at', flags)} AS archived_past,
      ${current('events', 'created_at', flags)} AS activity_current,
      ${past('events', 'created_at', flags)} AS activity_past,
      (${current('role_user', 'created_at', flags)} + ${current('group_role', 'created_at', flags)})::int AS members_added,
      (SELECT avg(extract(epoch FROM t.first_on - t.created_at) / 86400)::float8 FROM (
        SELECT f.created_at, (SELECT min(e.created_at) FROM events e JOIN environments env ON env.name = e.environment
          WHERE e.feature_name = f.name AND e.type = 'feature-environment-enabled' AND env.type = 'production') AS first_on
        FROM features f WHERE f.project = p.id AND f.type = 'release' AND f.created_at >= ${d30}::timestamptz) t
        WHERE t.first_on IS NOT NULL) AS avg_time_to_prod,
      floor(extract(epoch FROM least(
        ${leaves('features', 'created_at', flags)},
        ${leaves('features', 'archived_at', flags)},
        ${leaves('events', 'created_at', flags)},
        ${leaves('role_user', 'created_at', flags)},
        ${leaves('group_role', 'created_at', flags)})) * 1000)::float8 AS until_ms
    FROM projects p
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
  potentially_stale: boolean;
  impression_data: boolean;
  last_seen_at: Date | null;
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
export async function listFlagOverviews(db: Kysely<DB>, projectId: string, archived: boolean) {
  const result = await sql<FlagOverviewRow>`
    SELECT f.name, f.description, f.type, f.created_at, f.archived_at, f.stale, f.potentially_stale, f.impression_data, f.last_seen_at,
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

export interface ProjectExtras {
  archived_at: Date | null;
  type_counts: { type: string; count: number }[];
  first_flag: string | null;
  any_seen: boolean;
}

/** What the current overview adds to the deprecated one: flag counts per type, onboarding. */
export async function projectExtras(db: Kysely<DB>, projectId: string) {
  const result = await sql<ProjectExtras>`
    SELECT p.archived_at,
      coalesce((SELECT jsonb_agg(jsonb_build_object('type', t.type, 'count', t.count) ORDER BY t.type) FROM (
        SELECT f.type, count(*)::int AS count FROM features f
        WHERE f.project = p.id AND f.archived_at IS NULL GROUP BY f.type) t), '[]'::jsonb) AS type_counts,
      (SELECT f.name FROM features f WHERE f.project = p.id ORDER BY f.created_at, f.name LIMIT 1) AS first_flag,
      EXISTS (SELECT 1 FROM features f WHERE f.project = p.id AND f.last_seen_at IS NOT NULL) AS any_seen
    FROM projects p WHERE p.id = ${projectId}`.execute(db);
  return result.rows[0];
}

/**
 * Users who created flags, by name, as Unleash lists them: the flags of one `project` (archived
 * ones too), or, without one, the `active` flags of every project, whose creator's name contains
 * `nameContains` (case-insensitive; the flags overview's filter). Reads users read-only.
 */
export async function listFlagCreators(
  db: Kysely<DB>,
  only: { project?: string; active?: boolean; nameContains?: string },
): Promise<{ id: number; name: string }[]> {
  const name = sql<string>`coalesce(u.name, u.username, u.email, '')`;
  const { project, nameContains } = only;
  return db
    .selectFrom('users as u')
    .select(['u.id', name.as('name')])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('features as f')
          .select('f.name')
          .whereRef('f.created_by_user_id', '=', 'u.id')
          .$if(project !== undefined, (q) => q.where('f.project', '=', project as string))
          .$if(only.active === true, (q) => q.where('f.archived_at', 'is', null)),
      ),
    )
    .$if(nameContains !== undefined, (q) =>
      q.where(name, 'ilike', `%${likeLiteral(nameContains as string)}%`),
    )
    .orderBy(name)
    .orderBy('u.id')
    .execute();
}
