import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { type Db, likeLiteral } from '../../platform/db/index.js';
import type { Grant, Permission } from '../../platform/http/auth.js';
import type { User } from './users.schemas.js';

const USER_COLUMNS = [
  'id',
  'name',
  'username',
  'email',
  'password_hash',
  'login_attempts',
  'email_sent',
  'is_service',
  'root_role_id',
  'scim_id',
  'seen_at',
  'created_at',
] as const;

export interface UserRow {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  password_hash: string | null;
  login_attempts: number;
  email_sent: boolean;
  is_service: boolean;
  root_role_id: number | null;
  scim_id: string | null;
  seen_at: Date | null;
  created_at: Date;
}

const VIEWER = 3;

/** The Gravatar image of an identity (email, else username, else id), as Unleash shows users. */
export function avatarUrl(identity: string): string {
  const avatar = createHash('sha256').update(identity.trim().toLowerCase()).digest('hex');
  return `https://gravatar.com/avatar/${avatar}?s=42&d=retro&r=g`;
}

/** The API shape; never carries the password hash. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    ...(row.name !== null && { name: row.name }),
    ...(row.username !== null && { username: row.username }),
    ...(row.email !== null && { email: row.email }),
    imageUrl: avatarUrl(row.email ?? row.username ?? String(row.id)),
    accountType: row.is_service ? 'Service Account' : 'User',
    rootRole: row.root_role_id ?? VIEWER,
    loginAttempts: row.login_attempts,
    emailSent: row.email_sent,
    seenAt: row.seen_at ? row.seen_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    scimId: row.scim_id,
  };
}

/** What a user event records about the user (never the password). */
export const userEventData = (row: UserRow) => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  rootRole: row.root_role_id,
});

const users = (db: Db) => db.selectFrom('users').select(USER_COLUMNS).where('deleted_at', 'is', null);

/**
 * People (the default) or service accounts, by id. People and service accounts are listed apart,
 * as Unleash does: `/api/admin/user-admin` lists people, `/api/admin/service-account` the others.
 */
export function listUsers(db: Db, accounts: 'people' | 'service-accounts' = 'people'): Promise<UserRow[]> {
  return users(db)
    .where('is_service', '=', accounts === 'service-accounts')
    .orderBy('id')
    .execute();
}

export async function findUser(db: Db, id: number, lock = false): Promise<UserRow | undefined> {
  let query = users(db).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The users with these ids that exist (in id order). */
export function findUsers(db: Db, ids: number[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return users(db).where('id', 'in', ids).orderBy('id').execute();
}

/** A login name as it is looked up: trimmed, in lower case. */
export const normalLogin = (login: string) => login.trim().toLowerCase();

/** By username or email, in any letter case. */
export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const lower = normalLogin(login);
  return users(db)
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', lower), eb(sql`lower(email)`, '=', lower)]))
    .orderBy('id')
    .executeTakeFirst();
}

export function insertUser(
  db: Db,
  user: { name?: string; username?: string; email?: string; passwordHash?: string; rootRole: number },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      name: user.name ?? null,
      username: user.username ?? null,
      email: user.email ?? null,
      image_url: null,
      password_hash: user.passwordHash ?? null,
      root_role_id: user.rootRole,
      scim_id: null,
      seen_at: null,
      deleted_at: null,
    })
    .returning(USER_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateUser(
  db: Db,
  id: number,
  changes: { name?: string; email?: string; root_role_id?: number },
): Promise<UserRow> {
  return db
    .updateTable('users')
    .set(changes)
    .where('id', '=', id)
    .returning(USER_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function deleteUser(db: Db, id: number): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export async function setPasswordHash(db: Db, id: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', id).execute();
}

export async function recordLogin(db: Db, id: number, succeeded: boolean, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set(succeeded ? { login_attempts: 0, seen_at: at } : { login_attempts: sql`login_attempts + 1` })
    .where('id', '=', id)
    .execute();
}

/** The ids of the Admin users (people, not service accounts), locked for the transaction. */
export async function lockAdminIds(db: Db): Promise<number[]> {
  const rows = await users(db)
    .where('root_role_id', '=', 1)
    .where('is_service', '=', false)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** Serialises the first-user check of instances starting together (transaction-scoped). */
export async function lockUserBootstrap(db: Db): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(42420003)`.execute(db);
}

export function countUsers(db: Db): Promise<number> {
  return db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export interface RoleRow {
  id: number;
  name: string;
  type: string;
  description: string | null;
}

/** Root roles (built-in and custom root roles) or project roles (built-in and custom), by id. */
export function listRoles(db: Db, type: 'root' | 'project'): Promise<RoleRow[]> {
  return db
    .selectFrom('roles')
    .select(['id', 'name', 'type', 'description'])
    .where('type', 'in', type === 'root' ? ['root', 'root-custom'] : ['project', 'custom'])
    .orderBy('id')
    .execute();
}

/**
 * A user's permissions: their root role's grants, the grants of the project roles they hold in
 * each project, and the same of every group they belong to (a group's root role, its project roles).
 */
export async function loadGrants(db: Db, userId: number): Promise<Grant[]> {
  const { rows } = await sql<{ permission: string; project: string | null; environment: string | null }>`
    SELECT rp.permission, nullif(rp.project, '') AS project, nullif(rp.environment, '') AS environment
    FROM users u JOIN role_permissions rp ON rp.role_id = u.root_role_id
    WHERE u.id = ${userId}
    UNION
    SELECT rp.permission, ru.project, nullif(rp.environment, '') AS environment
    FROM role_user ru JOIN role_permissions rp ON rp.role_id = ru.role_id
    WHERE ru.user_id = ${userId}
    UNION
    SELECT rp.permission, nullif(rp.project, '') AS project, nullif(rp.environment, '') AS environment
    FROM group_user gu JOIN groups g ON g.id = gu.group_id JOIN role_permissions rp ON rp.role_id = g.root_role_id
    WHERE gu.user_id = ${userId}
    UNION
    SELECT rp.permission, gr.project, nullif(rp.environment, '') AS environment
    FROM group_user gu JOIN group_role gr ON gr.group_id = gu.group_id JOIN role_permissions rp ON rp.role_id = gr.role_id
    WHERE gu.user_id = ${userId}
    ORDER BY 1, 2, 3`.execute(db);
  return rows.map((r) => ({
    permission: r.permission as Permission,
    ...(r.project !== null && { project: r.project }),
    ...(r.environment !== null && { environment: r.environment }),
  }));
}

/** Makes the user Owner of a project (the creator of a project owns it). */
export async function addProjectOwner(db: Db, userId: number, project: string): Promise<void> {
  await db
    .insertInto('role_user')
    .values({ role_id: 4, user_id: userId, project })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * People whose name, username or email contains `q` (case-insensitive, the user's `%` and `_`
 * taken literally), by id, at most `limit`.
 */
export function searchUserRows(db: Db, q: string, limit: number): Promise<UserRow[]> {
  const pattern = `%${likeLiteral(q)}%`;
  return users(db)
    .where('is_service', '=', false)
    .where((eb) =>
      eb.or([eb('name', 'ilike', pattern), eb('username', 'ilike', pattern), eb('email', 'ilike', pattern)]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Admins (root role Admin) with and without a password, and admin service accounts. */
export async function countAdmins(db: Db) {
  const result = await sql<{ password: number; no_password: number; service: number }>`
    SELECT count(*) FILTER (WHERE NOT is_service AND password_hash IS NOT NULL)::int AS password,
      count(*) FILTER (WHERE NOT is_service AND password_hash IS NULL)::int AS no_password,
      count(*) FILTER (WHERE is_service)::int AS service
    FROM users WHERE deleted_at IS NULL AND root_role_id = 1`.execute(db);
  const row = result.rows[0] ?? { password: 0, no_password: 0, service: 0 };
  return { password: row.password, noPassword: row.no_password, service: row.service };
}

/**
 * The roles a user holds: the root role, then project roles (directly or through a group), only
 * those in `projectId` when given; each once, by id. Reads roles and groups read-only.
 */
export async function rolesOfUser(db: Db, userId: number, projectId?: string): Promise<RoleRow[]> {
  const inProject = projectId === undefined ? sql`true` : sql`x.project = ${projectId}`;
  const { rows } = await sql<RoleRow>`
    SELECT DISTINCT r.id, r.name, r.type, r.description FROM roles r
    WHERE r.id IN (SELECT u.root_role_id FROM users u WHERE u.id = ${userId})
       OR r.id IN (SELECT g.root_role_id FROM groups g JOIN group_user gu ON gu.group_id = g.id WHERE gu.user_id = ${userId})
       OR r.id IN (SELECT x.role_id FROM (
            SELECT ru.role_id, ru.project FROM role_user ru WHERE ru.user_id = ${userId}
            UNION ALL
            SELECT gr.role_id, gr.project FROM group_role gr JOIN group_user gu ON gu.group_id = gr.group_id
            WHERE gu.user_id = ${userId}) x WHERE ${inProject})
    ORDER BY r.id`.execute(db);
  return projectId === undefined ? rows : rows.filter((r) => r.type === 'project' || r.type === 'custom');
}

/** The projects where the user holds a role, directly or through a group, by id. */
export async function projectsOfUser(db: Db, userId: number): Promise<string[]> {
  // A root role counts as a role in `default`, where Unleash records it (its profile lists
  // `default` for every user with a root role).
  const { rows } = await sql<{ project: string }>`
    SELECT ru.project FROM role_user ru WHERE ru.user_id = ${userId}
    UNION
    SELECT gr.project FROM group_role gr JOIN group_user gu ON gu.group_id = gr.group_id WHERE gu.user_id = ${userId}
    UNION
    SELECT 'default' FROM users u WHERE u.id = ${userId} AND u.root_role_id IS NOT NULL
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.project);
}

/** The groups the user belongs to, by name. */
export async function groupsOfUser(db: Db, userId: number) {
  const { rows } = await sql<{ id: number; name: string; description: string | null }>`
    SELECT g.id, g.name, g.description FROM groups g JOIN group_user gu ON gu.group_id = g.id
    WHERE gu.user_id = ${userId} ORDER BY g.name`.execute(db);
  return rows;
}

/** People not seen since `before` (never seen: created before it), by id. */
export function listInactiveUsers(db: Db, before: Date): Promise<UserRow[]> {
  return users(db)
    .where('is_service', '=', false)
    .where((eb) =>
      eb.or([eb('seen_at', '<', before), eb.and([eb('seen_at', 'is', null), eb('created_at', '<', before)])]),
    )
    .orderBy('id')
    .execute();
}

/** People and groups as any signed-in caller may see them (for pickers): no emails of groups, no roles. */
export async function listUsersAndGroups(db: Db) {
  const [people, groups] = await Promise.all([
    users(db).where('is_service', '=', false).orderBy('id').execute(),
    sql<{ id: number; name: string; user_count: number; root_role_id: number | null }>`
      SELECT g.id, g.name, (SELECT count(*)::int FROM group_user gu WHERE gu.group_id = g.id) AS user_count, g.root_role_id
      FROM groups g ORDER BY g.name`.execute(db),
  ]);
  return { people, groups: groups.rows };
}
