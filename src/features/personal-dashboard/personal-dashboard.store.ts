import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * The projects where the user holds a role, directly or through a group (read only). A root role
 * counts as a role in `default`, as Unleash stores it (its role_user row for a root role names
 * `default`), so every user with a root role has that project on the dashboard.
 */
const rolesOf = (userId: number) => sql`(
    SELECT ru.project, ru.role_id FROM role_user ru WHERE ru.user_id = ${userId}
    UNION SELECT gr.project, gr.role_id FROM group_role gr JOIN group_user gu ON gu.group_id = gr.group_id
      WHERE gu.user_id = ${userId}
    UNION SELECT 'default', u.root_role_id FROM users u WHERE u.id = ${userId} AND u.root_role_id IS NOT NULL)`;

/** Active flags the user created or favorited, by name. */
export async function personalFlags(db: Kysely<DB>, userId: number) {
  const { rows } = await sql<{ name: string; project: string; type: string }>`
    SELECT f.name, f.project, f.type FROM features f
    WHERE f.archived_at IS NULL AND (f.created_by_user_id = ${userId}
      OR EXISTS (SELECT 1 FROM favorite_features ff WHERE ff.feature_name = f.name AND ff.user_id = ${userId}))
    ORDER BY f.name`.execute(db);
  return rows;
}

export interface ProjectCounts {
  id: string;
  name: string;
  total: number;
  stale: number;
  potentially_stale: number;
  member_count: number;
}

const countsOf = sql`
    (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at IS NULL) AS total,
    (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at IS NULL AND f.stale) AS stale,
    (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at IS NULL
      AND NOT f.stale AND f.potentially_stale) AS potentially_stale,
    (SELECT count(DISTINCT m.user_id)::int FROM (
      SELECT ru.user_id FROM role_user ru WHERE ru.project = p.id
      UNION SELECT gu.user_id FROM group_role gr JOIN group_user gu ON gu.group_id = gr.group_id
        WHERE gr.project = p.id) m) AS member_count`;

/** Active projects where the user holds any project role, by name, with their flag counts. */
export async function personalProjects(db: Kysely<DB>, userId: number): Promise<ProjectCounts[]> {
  const { rows } = await sql<ProjectCounts>`
    SELECT p.id, p.name, ${countsOf} FROM projects p
    WHERE p.archived_at IS NULL AND p.id IN (SELECT r.project FROM ${rolesOf(userId)} r)
    ORDER BY p.name, p.id`.execute(db);
  return rows;
}

/** Ids of the users holding the Admin root role. */
export async function adminIds(db: Kysely<DB>): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    SELECT u.id FROM users u JOIN roles r ON r.id = u.root_role_id AND r.name = 'Admin'
    WHERE u.deleted_at IS NULL AND NOT u.is_service ORDER BY u.id`.execute(db);
  return rows.map((r) => r.id);
}

/** Ids of the users holding the Owner role (directly) in any of the projects. */
export async function ownerIds(db: Kysely<DB>, projects: string[]): Promise<number[]> {
  if (projects.length === 0) return [];
  const { rows } = await sql<{ id: number }>`
    SELECT DISTINCT ru.user_id AS id FROM role_user ru JOIN roles r ON r.id = ru.role_id AND r.name = 'Owner'
    WHERE ru.project IN (SELECT jsonb_array_elements_text(${JSON.stringify(projects)}::jsonb))
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.id);
}

export interface ProjectDetailsRow extends ProjectCounts {
  first_flag: string | null;
  any_seen: boolean;
  owner_user_ids: number[];
  owner_groups: string[];
  roles: { id: number; name: string; type: string }[];
  events: { id: number; created_by: string | null; created_by_user_id: number | null; created_at: Date }[];
}

/** One project for the user: counts, onboarding, owners, the user's roles and the latest events. */
export async function projectDetails(db: Kysely<DB>, projectId: string, userId: number | null) {
  const { rows } = await sql<ProjectDetailsRow>`
    SELECT p.id, p.name, ${countsOf},
      (SELECT f.name FROM features f WHERE f.project = p.id ORDER BY f.created_at, f.name LIMIT 1) AS first_flag,
      EXISTS (SELECT 1 FROM features f WHERE f.project = p.id AND f.last_seen_at IS NOT NULL) AS any_seen,
      coalesce((SELECT jsonb_agg(DISTINCT ru.user_id) FROM role_user ru
        JOIN roles r ON r.id = ru.role_id AND r.name = 'Owner' WHERE ru.project = p.id), '[]') AS owner_user_ids,
      coalesce((SELECT jsonb_agg(DISTINCT g.name) FROM group_role gr JOIN groups g ON g.id = gr.group_id
        JOIN roles r ON r.id = gr.role_id AND r.name = 'Owner' WHERE gr.project = p.id), '[]') AS owner_groups,
      coalesce((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'name', r.name, 'type', r.type) ORDER BY r.id)
        FROM roles r WHERE r.id IN (SELECT x.role_id FROM ${userId === null ? sql`(SELECT NULL::text AS project, NULL::int AS role_id)` : rolesOf(userId)} x
          WHERE x.project = p.id)), '[]') AS roles,
      coalesce((SELECT jsonb_agg(e ORDER BY e.id DESC) FROM (
        SELECT e.id, e.created_by, e.created_by_user_id, e.created_at FROM events e
        WHERE e.project = p.id ORDER BY e.id DESC LIMIT 10) e), '[]') AS events
    FROM projects p WHERE p.id = ${projectId} AND p.archived_at IS NULL`.execute(db);
  return rows[0];
}
