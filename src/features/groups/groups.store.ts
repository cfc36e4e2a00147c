import type { Db } from '../../platform/db/index.js';

export interface GroupRow {
  id: number;
  name: string;
  description: string | null;
  mappings_sso: string[];
  root_role_id: number | null;
  scim_id: string | null;
  created_by: string | null;
  created_at: Date;
}

const COLUMNS = [
  'id',
  'name',
  'description',
  'mappings_sso',
  'root_role_id',
  'scim_id',
  'created_by',
  'created_at',
] as const;

/** Every group, or those with these ids, by name. */
export function listGroups(db: Db, ids?: number[]): Promise<GroupRow[]> {
  if (ids?.length === 0) return Promise.resolve([]);
  let query = db.selectFrom('groups').select(COLUMNS);
  if (ids) query = query.where('id', 'in', ids);
  return query.orderBy('name').orderBy('id').execute();
}

export async function findGroup(db: Db, id: number, lock = false): Promise<GroupRow | undefined> {
  let query = db.selectFrom('groups').select(COLUMNS).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function insertGroup(
  db: Db,
  group: {
    name: string;
    description: string | null;
    mappingsSSO: string[];
    rootRole: number | null;
    createdBy: string;
  },
): Promise<GroupRow> {
  return db
    .insertInto('groups')
    .values({
      name: group.name,
      description: group.description,
      mappings_sso: JSON.stringify(group.mappingsSSO),
      root_role_id: group.rootRole,
      scim_id: null,
      created_by: group.createdBy,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateGroup(
  db: Db,
  id: number,
  group: { name: string; description: string | null; mappingsSSO: string[]; rootRole: number | null },
): Promise<GroupRow> {
  return db
    .updateTable('groups')
    .set({
      name: group.name,
      description: group.description,
      mappings_sso: JSON.stringify(group.mappingsSSO),
      root_role_id: group.rootRole,
    })
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function deleteGroup(db: Db, id: number): Promise<void> {
  await db.deleteFrom('groups').where('id', '=', id).execute();
}

export interface MemberRow {
  group_id: number;
  user_id: number;
  created_by: string | null;
  created_at: Date;
}

export function listMembers(db: Db, groupIds: number[]): Promise<MemberRow[]> {
  if (groupIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('group_user')
    .select(['group_id', 'user_id', 'created_by', 'created_at'])
    .where('group_id', 'in', groupIds)
    .orderBy('group_id')
    .orderBy('user_id')
    .execute();
}

/** Makes the members exactly `userIds`: keeps who stays (and when they joined), adds, removes. */
export async function setMembers(db: Db, groupId: number, userIds: number[], by: string): Promise<void> {
  let remove = db.deleteFrom('group_user').where('group_id', '=', groupId);
  if (userIds.length > 0) remove = remove.where('user_id', 'not in', userIds);
  await remove.execute();
  if (userIds.length === 0) return;
  await db
    .insertInto('group_user')
    .values(userIds.map((user_id) => ({ group_id: groupId, user_id, created_by: by })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Per group, the projects where it holds a role. */
export async function groupProjects(db: Db, groupIds: number[]): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>();
  if (groupIds.length === 0) return result;
  const rows = await db
    .selectFrom('group_role')
    .select(['group_id', 'project'])
    .distinct()
    .where('group_id', 'in', groupIds)
    .orderBy('project')
    .execute();
  for (const r of rows) result.set(r.group_id, [...(result.get(r.group_id) ?? []), r.project]);
  return result;
}
