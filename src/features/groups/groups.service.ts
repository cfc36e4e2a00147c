import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent, appendEvents } from '../events/index.js';
import { findUsers, listRoles, toUser } from '../users/index.js';
import type { Group, GroupInput } from './groups.schemas.js';
import {
  deleteGroup,
  findGroup,
  type GroupRow,
  groupProjects,
  insertGroup,
  listGroups,
  listMembers,
  setMembers,
  updateGroup,
} from './groups.store.js';

/** Groups with their members (as users) and the projects where they hold roles. */
async function toGroups(db: Db, rows: GroupRow[]): Promise<Group[]> {
  const ids = rows.map((g) => g.id);
  const [members, projects] = await Promise.all([listMembers(db, ids), groupProjects(db, ids)]);
  const users = new Map(
    (await findUsers(db, [...new Set(members.map((m) => m.user_id))])).map((u) => [u.id, u]),
  );
  return rows.map((g) => {
    const own = members.filter((m) => m.group_id === g.id && users.has(m.user_id));
    return {
      id: g.id,
      name: g.name,
      description: g.description,
      mappingsSSO: g.mappings_sso,
      rootRole: g.root_role_id,
      createdBy: g.created_by,
      createdAt: g.created_at.toISOString(),
      users: own.map((m) => ({
        joinedAt: m.created_at.toISOString(),
        createdBy: m.created_by,
        user: toUser(users.get(m.user_id) as NonNullable<ReturnType<typeof users.get>>),
      })),
      projects: projects.get(g.id) ?? [],
      userCount: own.length,
      scimId: g.scim_id,
    };
  });
}

/** The groups with these ids, as the API shows them (unknown ids are left out). */
export async function viewGroups(db: Db, ids: number[]): Promise<Group[]> {
  return toGroups(db, await listGroups(db, ids));
}

export async function listAllGroups(db: Db) {
  return { groups: await toGroups(db, await listGroups(db)) };
}

export async function getGroup(db: Db, id: number): Promise<Group> {
  const row = await findGroup(db, id);
  if (!row) throw notFound(`Could not find group with id ${id}`);
  return (await toGroups(db, [row]))[0] as Group;
}

/** What a group event records: its fields and member ids. */
const eventData = (g: Group) => ({
  id: g.id,
  name: g.name,
  description: g.description,
  mappingsSSO: g.mappingsSSO,
  rootRole: g.rootRole,
  users: g.users.map((u) => u.user.id),
});

/** Checks the input and returns the member ids (each must be an existing user). */
async function checked(db: Db, input: GroupInput): Promise<number[]> {
  if (!input.name.trim()) throw invalidField('/body/name', 'A group needs a name.');
  if (input.rootRole != null && !(await listRoles(db, 'root')).some((r) => r.id === input.rootRole)) {
    throw invalidField('/body/rootRole', `There is no root role with id ${input.rootRole}.`);
  }
  const ids = [...new Set((input.users ?? []).map((u) => u.user.id))];
  const found = new Set((await findUsers(db, ids)).map((u) => u.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw invalidField('/body/users', `There are no users with ids ${missing.join(', ')}.`);
  return ids;
}

async function uniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (sqlState(error) === '23505') throw nameExists('A group with that name already exists.');
    throw error;
  }
}

const fields = (input: GroupInput) => ({
  name: input.name.trim(),
  description: input.description ?? null,
  mappingsSSO: input.mappingsSSO ?? [],
  rootRole: input.rootRole ?? null,
});

export function createGroup(deps: Deps, input: GroupInput, by: Principal): Promise<Group> {
  return uniqueName(() =>
    transaction(deps.database.db, async (tx) => {
      const members = await checked(tx, input);
      const row = await insertGroup(tx, { ...fields(input), createdBy: by.name });
      await setMembers(tx, row.id, members, by.name);
      const group = (await toGroups(tx, [row]))[0] as Group;
      await appendEvent(tx, {
        type: 'group-created',
        createdBy: by.name,
        createdByUserId: by.userId,
        data: eventData(group),
      });
      return group;
    }),
  );
}

/** Replaces the group's fields and members (`users` omitted: members stay). */
export function changeGroup(deps: Deps, id: number, input: GroupInput, by: Principal): Promise<Group> {
  return uniqueName(() =>
    transaction(deps.database.db, async (tx) => {
      const before = await findGroup(tx, id, true);
      if (!before) throw notFound(`Could not find group with id ${id}`);
      const previous = (await toGroups(tx, [before]))[0] as Group;
      // Omitted `users`: the members stay (checked() still checks name and root role).
      const listed = await checked(tx, input);
      const members = input.users === undefined ? previous.users.map((u) => u.user.id) : listed;
      const row = await updateGroup(tx, id, fields(input));
      await setMembers(tx, id, members, by.name);
      const group = (await toGroups(tx, [row]))[0] as Group;
      await appendEvent(tx, {
        type: 'group-updated',
        createdBy: by.name,
        createdByUserId: by.userId,
        data: eventData(group),
        preData: eventData(previous),
      });
      await recordMemberChanges(
        tx,
        id,
        previous.users.map((u) => u.user.id),
        members,
        by,
      );
      return group;
    }),
  );
}

/**
 * One `group-user-added` (data `{groupId, userId}`) per new member and one `group-user-removed`
 * (preData `{groupId, userId}`) per member gone, as Unleash records a change of a group's members.
 */
async function recordMemberChanges(
  tx: Db,
  groupId: number,
  before: number[],
  after: number[],
  by: Principal,
) {
  const had = new Set(before);
  const has = new Set(after);
  const who = { createdBy: by.name, createdByUserId: by.userId };
  await appendEvents(tx, [
    ...after
      .filter((id) => !had.has(id))
      .map((userId) => ({ type: 'group-user-added', ...who, data: { groupId, userId } })),
    ...before
      .filter((id) => !has.has(id))
      .map((userId) => ({ type: 'group-user-removed', ...who, data: null, preData: { groupId, userId } })),
  ]);
}

/** Deletes the group; its members lose what it gave them (memberships and roles cascade). */
export async function removeGroup(deps: Deps, id: number, by: Principal): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    const before = await findGroup(tx, id, true);
    if (!before) throw notFound(`Could not find group with id ${id}`);
    const previous = (await toGroups(tx, [before]))[0] as Group;
    await deleteGroup(tx, id);
    await appendEvent(tx, {
      type: 'group-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: null,
      preData: eventData(previous),
    });
  });
}
