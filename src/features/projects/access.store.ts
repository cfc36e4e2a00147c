import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Project access: the project roles of users (`role_user`) and of groups (`group_role`). This use
 * case owns those rows; the users slice adds the Owner row of a project's creator.
 */
type Db = Kysely<DB>;

export interface Holding {
  holder: number;
  role_id: number;
  created_at: Date;
}

export function userRoles(db: Db, project: string, userId?: number): Promise<Holding[]> {
  let query = db
    .selectFrom('role_user')
    .select(['user_id as holder', 'role_id', 'created_at'])
    .where('project', '=', project);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  return query.orderBy('user_id').orderBy('role_id').execute();
}

export function groupRoles(db: Db, project: string, groupId?: number): Promise<Holding[]> {
  let query = db
    .selectFrom('group_role')
    .select(['group_id as holder', 'role_id', 'created_at'])
    .where('project', '=', project);
  if (groupId !== undefined) query = query.where('group_id', '=', groupId);
  return query.orderBy('group_id').orderBy('role_id').execute();
}

/** Gives each role to each user and group; roles already held stay as they were. */
export async function addRoles(
  db: Db,
  project: string,
  grant: { roles: number[]; users: number[]; groups: number[]; by: string },
): Promise<void> {
  const users = grant.users.flatMap((user_id) =>
    grant.roles.map((role_id) => ({ role_id, user_id, project })),
  );
  const groups = grant.groups.flatMap((group_id) =>
    grant.roles.map((role_id) => ({ role_id, group_id, project, created_by: grant.by })),
  );
  if (users.length > 0)
    await db
      .insertInto('role_user')
      .values(users)
      .onConflict((oc) => oc.doNothing())
      .execute();
  if (groups.length > 0)
    await db
      .insertInto('group_role')
      .values(groups)
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** Makes the user's roles in the project exactly `roles` (none: removes them). */
export async function setUserRoles(db: Db, project: string, userId: number, roles: number[]): Promise<void> {
  let remove = db.deleteFrom('role_user').where('project', '=', project).where('user_id', '=', userId);
  if (roles.length > 0) remove = remove.where('role_id', 'not in', roles);
  await remove.execute();
  await addRoles(db, project, { roles, users: [userId], groups: [], by: '' });
}

export async function setGroupRoles(db: Db, project: string, groupId: number, roles: number[], by: string) {
  let remove = db.deleteFrom('group_role').where('project', '=', project).where('group_id', '=', groupId);
  if (roles.length > 0) remove = remove.where('role_id', 'not in', roles);
  await remove.execute();
  await addRoles(db, project, { roles, users: [], groups: [groupId], by });
}
