import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { viewGroups } from '../groups/index.js';
import { findUsers, listRoles, toUser } from '../users/index.js';
import { type AccessInput, idOf } from './access.schemas.js';
import {
  addRoles,
  groupRoles,
  type Holding,
  setGroupRoles,
  setUserRoles,
  userRoles,
} from './access.store.js';
import { findProject } from './projects.store.js';

async function activeProject(db: Db, projectId: string, lock = false) {
  const project = await findProject(db, projectId, lock);
  if (!project || project.archivedAt) throw notFound(`Could not find project with id "${projectId}".`);
  return project;
}

/** Per holder (user or group): role ids in order and when the first was given. */
function byHolder(rows: Holding[]) {
  const result = new Map<number, { roles: number[]; addedAt: Date }>();
  for (const r of rows) {
    const entry = result.get(r.holder) ?? { roles: [], addedAt: r.created_at };
    entry.roles.push(r.role_id);
    if (r.created_at < entry.addedAt) entry.addedAt = r.created_at;
    result.set(r.holder, entry);
  }
  return result;
}

export async function readAccess(db: Db, projectId: string) {
  await activeProject(db, projectId);
  const [roles, users, groups] = await Promise.all([
    listRoles(db, 'project'),
    userRoles(db, projectId).then(byHolder),
    groupRoles(db, projectId).then(byHolder),
  ]);
  const people = await findUsers(db, [...users.keys()]);
  const groupViews = await viewGroups(db, [...groups.keys()]);
  const holding = (h: { roles: number[]; addedAt: Date }) => ({
    addedAt: h.addedAt.toISOString(),
    roleId: h.roles[0] as number,
    roles: h.roles,
  });
  return {
    roles: roles.map((r) => ({
      id: r.id,
      name: r.name,
      type: r.type,
      description: r.description ?? '',
      project: null,
    })),
    users: people.map((row) => {
      const user = toUser(row);
      return {
        id: user.id,
        ...(user.name !== undefined && { name: user.name }),
        ...(user.username !== undefined && { username: user.username }),
        ...(user.email !== undefined && { email: user.email }),
        imageUrl: user.imageUrl,
        isAPI: false,
        ...holding(users.get(row.id) as { roles: number[]; addedAt: Date }),
      };
    }),
    groups: groupViews.map((g) => ({
      ...g,
      ...holding(groups.get(g.id) as { roles: number[]; addedAt: Date }),
    })),
  };
}

/** 400 unless every id is a project role. */
async function checkRoles(db: Db, roles: number[]) {
  const known = new Set((await listRoles(db, 'project')).map((r) => r.id));
  const unknown = roles.filter((r) => !known.has(r));
  if (unknown.length > 0) {
    throw invalidField(
      '/body/roles',
      `Not project roles: ${unknown.join(', ')} (only project roles are given in a project).`,
    );
  }
}

async function checkUsers(db: Db, ids: number[]) {
  const found = new Set((await findUsers(db, ids)).map((u) => u.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw invalidField('/body/users', `There are no users with ids ${missing.join(', ')}.`);
}

async function checkGroups(db: Db, ids: number[]) {
  const found = new Set((await viewGroups(db, ids)).map((g) => g.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0)
    throw invalidField('/body/groups', `There are no groups with ids ${missing.join(', ')}.`);
}

const unique = (ids: number[]) => [...new Set(ids)];

export async function grantAccess(
  deps: Deps,
  projectId: string,
  input: AccessInput,
  by: Principal,
): Promise<void> {
  const roles = unique(input.roles);
  const users = unique((input.users ?? []).map(idOf));
  const groups = unique((input.groups ?? []).map(idOf));
  await transaction(deps.database.db, async (tx) => {
    await activeProject(tx, projectId, true);
    await checkRoles(tx, roles);
    await checkUsers(tx, users);
    await checkGroups(tx, groups);
    await addRoles(tx, projectId, { roles, users, groups, by: by.name });
    await appendEvent(tx, {
      type: 'project-access-added',
      createdBy: by.name,
      createdByUserId: by.userId,
      project: projectId,
      data: { roles: roles.map((roleId) => ({ roleId, groupIds: groups, userIds: users })) },
    });
  });
}

/** Replaces the project roles of one user or group; no roles removes them from the project. */
export async function setHolderRoles(
  deps: Deps,
  projectId: string,
  holder: { userId: number } | { groupId: number },
  requested: number[],
  by: Principal,
): Promise<void> {
  const roles = unique(requested).sort((a, b) => a - b);
  await transaction(deps.database.db, async (tx) => {
    await activeProject(tx, projectId, true);
    await checkRoles(tx, roles);
    const isUser = 'userId' in holder;
    if (isUser) await checkUsers(tx, [holder.userId]);
    else await checkGroups(tx, [holder.groupId]);
    const before = isUser
      ? await userRoles(tx, projectId, holder.userId)
      : await groupRoles(tx, projectId, holder.groupId);
    if (roles.length === 0 && before.length === 0) return; // nothing held, nothing to remove
    if (isUser) await setUserRoles(tx, projectId, holder.userId, roles);
    else await setGroupRoles(tx, projectId, holder.groupId, roles, by.name);
    const kind = isUser ? 'user' : 'group';
    await appendEvent(tx, {
      type: roles.length === 0 ? 'project-access-user-roles-deleted' : `project-access-${kind}-roles-updated`,
      createdBy: by.name,
      createdByUserId: by.userId,
      project: projectId,
      preData: { roles: before.map((r) => r.role_id), ...holder },
      data: roles.length === 0 ? null : { roles, ...holder },
    });
  });
}
