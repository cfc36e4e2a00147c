import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalid, invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { hashPassword } from './password.hash.js';
import { passwordProblems } from './password.policy.js';
import { createResetLink, invalidLink } from './reset.service.js';
import { findUsableResetToken, useResetTokens } from './reset.store.js';
import { deleteUserSessions } from './sessions.store.js';
import type { CreateUserInput, UpdateUserInput, User } from './users.schemas.js';
import {
  countAdmins,
  deleteUser,
  findUser,
  insertUser,
  listInactiveUsers,
  listRoles,
  listUsers,
  listUsersAndGroups,
  lockAdminIds,
  searchUserRows,
  setPasswordHash,
  toUser,
  type UserRow,
  updateUser,
  userEventData,
} from './users.store.js';

/** 400 naming every rule the password breaks (the same check wherever a password is set). */
export function checkPassword(password: string): void {
  if (password.length === 0) throw invalidField('/body/password', 'Password cannot be empty or undefined');
  const problems = passwordProblems(password);
  if (problems.length > 0) {
    throw invalid(
      problems[0] as string,
      problems.map((message) => ({ path: '/body/password', message })),
    );
  }
}

const toRole = (r: { id: number; name: string; type: string; description: string | null }) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  description: r.description ?? '',
});

export async function listAllUsers(db: Db) {
  const [users, roles] = await Promise.all([listUsers(db), listRoles(db, 'root')]);
  return { users: users.map((u) => ({ ...toUser(u), inviteLink: '' })), rootRoles: roles.map(toRole) };
}

export async function getUser(db: Db, id: number): Promise<User> {
  const row = await findUser(db, id);
  if (!row) throw notFound(`Could not find user with id ${id}`);
  return toUser(row);
}

/**
 * A root role by id or name (any letter case): a built-in one or a custom root role
 * (`root-custom`, see the roles slice); 400 when there is none, and for project roles.
 */
export async function rootRoleId(db: Db, role: number | string): Promise<number> {
  const roles = await listRoles(db, 'root');
  const found = roles.find((r) =>
    typeof role === 'number' ? r.id === role : r.name.toLowerCase() === role.trim().toLowerCase(),
  );
  if (!found) throw invalidField('/body/rootRole', `There is no root role ${JSON.stringify(role)}.`);
  return found.id;
}

const event = (by: Principal, type: string, data: unknown, preData?: unknown) => ({
  type,
  createdBy: by.name,
  createdByUserId: by.userId,
  data,
  ...(preData !== undefined && { preData }),
});

/** Unique violations of the username or email indexes become 409 with a plain message. */
async function uniqueUser<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (sqlState(error) === '23505') throw nameExists('A user with that username or email already exists.');
    throw error;
  }
}

export async function createUser(deps: Deps, input: CreateUserInput, by: Principal): Promise<User> {
  const username = input.username?.trim() || undefined;
  const email = input.email?.trim() || undefined;
  if (!username && !email) throw invalid('You must specify username or email');
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw invalidField('/body/email', 'The email address is not valid.');
  }
  if (input.password !== undefined) checkPassword(input.password);
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : undefined;
  return uniqueUser(() =>
    transaction(deps.database.db, async (tx) => {
      const rootRole = await rootRoleId(tx, input.rootRole);
      const row = await insertUser(tx, {
        ...(input.name !== undefined && { name: input.name }),
        ...(username !== undefined && { username }),
        ...(email !== undefined && { email }),
        ...(passwordHash !== undefined && { passwordHash }),
        rootRole,
      });
      await appendEvent(tx, event(by, 'user-created', userEventData(row)));
      // Without a password, the answer carries a one-time link to set one (reset.service.ts).
      const inviteLink =
        passwordHash === undefined ? await createResetLink(deps, tx, row.id, by, 'new-user') : '';
      return { ...toUser(row), inviteLink };
    }),
  );
}

export async function changeUser(
  deps: Deps,
  id: number,
  input: UpdateUserInput,
  by: Principal,
): Promise<User> {
  const email = input.email?.trim();
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw invalidField('/body/email', 'The email address is not valid.');
  }
  return uniqueUser(() =>
    transaction(deps.database.db, async (tx) => {
      const before = await lockedUser(tx, id);
      const changes = {
        ...(input.name !== undefined && { name: input.name }),
        ...(email !== undefined && { email }),
        ...(input.rootRole !== undefined && { root_role_id: await rootRoleId(tx, input.rootRole) }),
      };
      if (Object.keys(changes).length === 0) return toUser(before);
      await guardLastAdmin(tx, before, changes.root_role_id);
      const after = await updateUser(tx, id, changes);
      await appendEvent(tx, event(by, 'user-updated', userEventData(after), userEventData(before)));
      return toUser(after);
    }),
  );
}

export async function removeUser(deps: Deps, id: number, by: Principal): Promise<void> {
  if (by.kind === 'user' && by.userId === id) {
    throw new AppError('InvalidOperationError', 'You cannot delete yourself.');
  }
  await transaction(deps.database.db, async (tx) => {
    const before = await lockedUser(tx, id);
    await guardLastAdmin(tx, before, null);
    // Sessions, tokens and project roles go with the user (ON DELETE CASCADE); events keep the
    // name they recorded.
    await deleteUser(tx, id);
    await appendEvent(tx, event(by, 'user-deleted', null, userEventData(before)));
  });
}

/**
 * Sets a user's password (policy enforced) and ends the user's other sessions; `keepSession`
 * (a hash) is the session that made the change, when the user changed their own password.
 */
export async function changePassword(
  deps: Deps,
  id: number,
  password: string,
  by: Principal,
  keepSession?: string,
  viaLink?: string,
): Promise<void> {
  checkPassword(password);
  const hash = await hashPassword(password);
  await transaction(deps.database.db, async (tx) => {
    const user = await lockedUser(tx, id);
    // A one-time link is used up here; a second request with it (even a concurrent one) fails.
    if (viaLink && !(await findUsableResetToken(tx, viaLink, deps.now(), true))) throw invalidLink();
    await useResetTokens(tx, id, deps.now());
    await setPasswordHash(tx, id, hash);
    await deleteUserSessions(tx, id, keepSession);
    await appendEvent(
      tx,
      event(by, 'user-password-changed', { id: user.id, username: user.username, email: user.email }),
    );
  });
}

async function lockedUser(db: Db, id: number): Promise<UserRow> {
  const row = await findUser(db, id, true);
  if (!row) throw notFound(`Could not find user with id ${id}`);
  return row;
}

const ADMIN_ROLE = 1;

/** The instance keeps at least one Admin user, so that someone can always manage it. */
async function guardLastAdmin(db: Db, user: UserRow, newRole: number | null | undefined): Promise<void> {
  if (user.root_role_id !== ADMIN_ROLE || newRole === ADMIN_ROLE || newRole === undefined) return;
  // Locked, so two concurrent demotions cannot each see the other admin and leave none.
  if ((await lockAdminIds(db)).length <= 1) {
    throw new AppError(
      'InvalidOperationError',
      'The last Admin user cannot lose the Admin role or be deleted.',
    );
  }
}

/** People matching `q` in name, username or email, at most 100 (for pickers). */
export async function searchUsers(db: Db, q: string) {
  return (await searchUserRows(db, q, 100)).map(toUser);
}

export const adminCount = (db: Db) => countAdmins(db);

/** A person not seen for this long (never seen: created this long ago) is inactive, as in Unleash. */
const INACTIVE_AFTER_MS = 180 * 86_400_000;

export async function listInactive(deps: Deps) {
  const rows = await listInactiveUsers(deps.database.db, new Date(deps.now().getTime() - INACTIVE_AFTER_MS));
  return {
    version: 1,
    inactiveUsers: rows.map((r) => ({
      id: r.id,
      name: r.name,
      username: r.username,
      ...(r.email !== null && { email: r.email }),
      seenAt: r.seen_at ? r.seen_at.toISOString() : null,
      createdAt: r.created_at.toISOString(),
    })),
  };
}

/**
 * Deletes those of the listed users who are inactive, in one transaction, each with
 * `user-deleted`; active users, unknown ids and the caller are skipped, and the last admin stays.
 */
export async function deleteInactive(deps: Deps, ids: number[], by: Principal): Promise<void> {
  const before = new Date(deps.now().getTime() - INACTIVE_AFTER_MS);
  await transaction(deps.database.db, async (tx) => {
    const inactive = new Set((await listInactiveUsers(tx, before)).map((u) => u.id));
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      if (!inactive.has(id) || (by.kind === 'user' && by.userId === id)) continue;
      const row = await lockedUser(tx, id);
      await guardLastAdmin(tx, row, null);
      await deleteUser(tx, id);
      await appendEvent(tx, event(by, 'user-deleted', null, userEventData(row)));
    }
  });
}

/** People and groups, for pickers any signed-in caller may use. */
export async function usersAndGroups(db: Db) {
  const { people, groups } = await listUsersAndGroups(db);
  return {
    users: people.map((row) => {
      const u = toUser(row);
      return {
        id: u.id,
        ...(u.name != null && { name: u.name }),
        ...(u.username != null && { username: u.username }),
        ...(u.email != null && { email: u.email }),
        imageUrl: u.imageUrl,
        accountType: u.accountType,
      };
    }),
    groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      userCount: g.user_count,
      rootRole: g.root_role_id,
    })),
  };
}
