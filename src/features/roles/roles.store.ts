import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { RoleGrant } from './roles.validate.js';

/**
 * Roles and their grants. This slice writes the rows of custom roles (`root-custom`, `custom`);
 * the built-in ones (ids 1-6) come from the migrations and are only read here.
 */

export interface RoleRow {
  id: number;
  name: string;
  type: 'root' | 'root-custom' | 'project' | 'custom';
  description: string | null;
}

export interface GrantRow extends RoleGrant {
  project: string;
}

const COLUMNS = ['id', 'name', 'type', 'description'] as const;

export function listAllRoles(db: Db): Promise<RoleRow[]> {
  return db.selectFrom('roles').select(COLUMNS).orderBy('id').execute();
}

/**
 * One role; `lock`: 'update' before deleting it (waits for, and then holds off, anyone giving the
 * role to a user or group, whose foreign key check needs a key-share lock on the row), 'no-key'
 * before changing it (serialises changes of one role without holding off assignments).
 */
export function findRole(db: Db, id: number, lock?: 'update' | 'no-key'): Promise<RoleRow | undefined> {
  let query = db.selectFrom('roles').select(COLUMNS).where('id', '=', id);
  if (lock === 'update') query = query.forUpdate();
  if (lock === 'no-key') query = query.forNoKeyUpdate();
  return query.executeTakeFirst();
}

/** A role's grants in permission, environment, project order. */
export function listGrants(db: Db, roleId: number): Promise<GrantRow[]> {
  return db
    .selectFrom('role_permissions')
    .select(['permission', 'environment', 'project'])
    .where('role_id', '=', roleId)
    .orderBy(sql`permission COLLATE "C"`)
    .orderBy(sql`environment COLLATE "C"`)
    .orderBy(sql`project COLLATE "C"`)
    .execute();
}

export function insertRole(
  db: Db,
  role: { name: string; type: 'root-custom' | 'custom'; description: string | null },
): Promise<RoleRow> {
  return db.insertInto('roles').values(role).returning(COLUMNS).executeTakeFirstOrThrow();
}

export function updateRole(
  db: Db,
  id: number,
  changes: { name: string; description: string | null },
): Promise<RoleRow> {
  return db
    .updateTable('roles')
    .set(changes)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Makes the role's grants exactly `grants` (custom roles: project '' = where the role applies). */
export async function replaceGrants(db: Db, roleId: number, grants: RoleGrant[]): Promise<void> {
  await db.deleteFrom('role_permissions').where('role_id', '=', roleId).execute();
  if (grants.length === 0) return;
  await db
    .insertInto('role_permissions')
    .values(grants.map((g) => ({ role_id: roleId, permission: g.permission, environment: g.environment })))
    .execute();
}

/** Deletes the role; its grants go with it (ON DELETE CASCADE). */
export async function deleteRole(db: Db, id: number): Promise<void> {
  await db.deleteFrom('roles').where('id', '=', id).execute();
}

export interface RoleHolders {
  /** Users and service accounts with it as their root role. */
  rootUsers: number;
  /** Users holding it in some project. */
  projectUsers: number;
  /** Groups with it as their root role, or holding it in some project. */
  groups: number;
  /** Invite links that give it. */
  inviteLinks: number;
}

/**
 * Who holds the role. Read-only look into tables other slices write (users, project access,
 * groups, invite links): holding a role is what makes it impossible to delete.
 */
export async function roleHolders(db: Db, roleId: number): Promise<RoleHolders> {
  const { rows } = await sql<{
    root_users: number;
    project_users: number;
    groups: number;
    invite_links: number;
  }>`
    SELECT
      (SELECT count(*) FROM users WHERE root_role_id = ${roleId})::int AS root_users,
      (SELECT count(DISTINCT user_id) FROM role_user WHERE role_id = ${roleId})::int AS project_users,
      (SELECT count(*) FROM (
        SELECT id FROM groups WHERE root_role_id = ${roleId}
        UNION SELECT group_id FROM group_role WHERE role_id = ${roleId}
      ) AS g)::int AS groups,
      (SELECT count(*) FROM public_signup_tokens WHERE role_id = ${roleId})::int AS invite_links`.execute(db);
  const row = rows[0] ?? { root_users: 0, project_users: 0, groups: 0, invite_links: 0 };
  return {
    rootUsers: Number(row.root_users),
    projectUsers: Number(row.project_users),
    groups: Number(row.groups),
    inviteLinks: Number(row.invite_links),
  };
}

/** The names of the environments that exist (for environment-scoped grants). */
export async function environmentNames(db: Db): Promise<Set<string>> {
  const rows = await db.selectFrom('environments').select('name').execute();
  return new Set(rows.map((r) => r.name));
}
