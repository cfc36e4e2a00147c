import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface StatusRow {
  activity: { date: string; count: number }[];
  api_tokens: number;
  members: number;
  segments: number;
  stages: { stage: string; current: number; average_days: number | null }[];
  /** The last moment (epoch ms) the activity holds for unchanged data (its oldest event's leaving the year); null: for ever. */
  until_ms: number | null;
}

/**
 * What the project status page shows: events per day over the last year (UTC dates), the
 * project's own tokens, directly granted members and segments, and per lifecycle stage the
 * flags in it now and the mean days flags stayed in it before moving on. Only the activity moves
 * with the clock (an event leaves the year), at `until_ms`.
 */
export async function projectStatusRow(db: Kysely<DB>, projectId: string, now: Date) {
  const yearAgo = new Date(now.getTime() - 365 * 86_400_000);
  const result = await sql<StatusRow>`
    SELECT
      coalesce((SELECT jsonb_agg(jsonb_build_object('date', d.date, 'count', d.count) ORDER BY d.date) FROM (
        SELECT to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*)::int AS count
        FROM events e WHERE e.project = p.id AND e.created_at >= ${yearAgo}::timestamptz
        GROUP BY 1) d), '[]'::jsonb) AS activity,
      (SELECT count(*)::int FROM api_tokens t WHERE p.id = ANY(t.projects)) AS api_tokens,
      (SELECT count(DISTINCT ru.user_id)::int FROM role_user ru WHERE ru.project = p.id) AS members,
      (SELECT count(*)::int FROM segments s WHERE s.segment_project_id = p.id) AS segments,
      coalesce((SELECT jsonb_agg(jsonb_build_object('stage', st.stage, 'current', st.current,
          'average_days', st.average_days)) FROM (
        SELECT s.stage,
          (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.lifecycle_stage = s.stage) AS current,
          (SELECT avg(extract(epoch FROM nxt.created_at - l.created_at) / 86400)::float8
            FROM feature_lifecycles l JOIN features f ON f.name = l.feature_name AND f.project = p.id
            CROSS JOIN LATERAL (SELECT min(l2.created_at) AS created_at FROM feature_lifecycles l2
              WHERE l2.feature_name = l.feature_name AND l2.created_at > l.created_at) nxt
            WHERE l.stage = s.stage AND nxt.created_at IS NOT NULL) AS average_days
        FROM unnest(ARRAY['initial', 'pre-live', 'live', 'completed', 'archived']) s(stage)) st), '[]'::jsonb) AS stages,
      floor(extract(epoch FROM (SELECT min(e.created_at) FROM events e
        WHERE e.project = p.id AND e.created_at >= ${yearAgo}::timestamptz) + interval '365 days') * 1000)::float8 AS until_ms
    FROM projects p WHERE p.id = ${projectId}`.execute(db);
  return result.rows[0];
}
