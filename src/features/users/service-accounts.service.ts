import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { issuePat, revokePat, toPat } from './pats.service.js';
import type {
  CreateServiceAccountInput,
  ServiceAccount,
  UpdateServiceAccountInput,
} from './service-accounts.schemas.js';
import { findServiceAccount, insertServiceAccount, listPatsOf } from './service-accounts.store.js';
import { listPats, type PatRow } from './sessions.store.js';
import { rootRoleId } from './users.service.js';
import { deleteUser, listRoles, listUsers, toUser, type UserRow, updateUser } from './users.store.js';

/**
 * Service accounts (`/api/admin/service-account`), as Unleash Enterprise has them: users with
 * `is_service`, no password and no email, that act only through their tokens, with their root
 * role (built-in or custom). Decisions:
 * - Every operation needs ADMIN, as in Unleash.
 * - `rootRole` by id or name, as for users (Unleash: id only). Username unique among users and
 *   service accounts in any letter case: 409 (Unleash: 400), as for users.
 * - Password login refuses them whatever their row holds (sessions.service.ts); they do not
 *   appear in `GET /api/admin/user-admin` (as Unleash), which lists people only.
 * - Tokens are personal access tokens of the account (`user:` + 56 hex, stored as SHA-256, shown
 *   once, expiry required and in the future). Their events are `pat-created` / `pat-deleted`
 *   (`data.userId`: the account), the types of the spec's event list, as for a person's tokens.
 * - Events `service-account-created` / `-updated` / `-deleted` carry `{id, name, username,
 *   rootRole}`, never a secret. Deleting an account deletes its tokens (they stop at once).
 */

function toServiceAccount(row: UserRow, tokens: PatRow[]): ServiceAccount {
  const user = toUser(row);
  return {
    id: user.id,
    ...(user.name !== undefined && { name: user.name }),
    ...(user.username !== undefined && { username: user.username }),
    imageUrl: user.imageUrl,
    accountType: user.accountType,
    rootRole: user.rootRole,
    seenAt: user.seenAt,
    createdAt: user.createdAt,
    tokens: tokens.map(toPat),
  };
}

const eventData = (row: UserRow) => ({
  id: row.id,
  name: row.name,
  username: row.username,
  rootRole: row.root_role_id,
});

const event = (by: Principal, type: string, payload: { data?: unknown; preData?: unknown }) => ({
  type,
  createdBy: by.name,
  createdByUserId: by.userId,
  ...payload,
});

const toRole = (r: { id: number; name: string; type: string; description: string | null }) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  description: r.description ?? '',
});

export async function listServiceAccounts(db: Db) {
  const [accounts, roles] = await Promise.all([listUsers(db, 'service-accounts'), listRoles(db, 'root')]);
  const tokens = await listPatsOf(
    db,
    accounts.map((a) => a.id),
  );
  return {
    serviceAccounts: accounts.map((a) =>
      toServiceAccount(
        a,
        tokens.filter((t) => t.user_id === a.id),
      ),
    ),
    rootRoles: roles.map(toRole),
  };
}

const notFoundAccount = (id: number) => notFound(`Could not find a service account with id ${id}.`);

async function lockedAccount(db: Db, id: number): Promise<UserRow> {
  const row = await findServiceAccount(db, id, true);
  if (!row) throw notFoundAccount(id);
  return row;
}

/** A taken username (any letter case, users included) is a 409. */
async function uniqueUsername<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (sqlState(error) === '23505')
      throw nameExists('A user or service account with that username already exists.');
    throw error;
  }
}

export async function createServiceAccount(
  deps: Deps,
  input: CreateServiceAccountInput,
  by: Principal,
): Promise<ServiceAccount> {
  const name = input.name.trim();
  if (name === '') throw invalidField('/body/name', 'The name cannot be empty.');
  return uniqueUsername(() =>
    transaction(deps.database.db, async (tx) => {
      const rootRole = await rootRoleId(tx, input.rootRole);
      const row = await insertServiceAccount(tx, { name, username: input.username, rootRole });
      await appendEvent(tx, event(by, 'service-account-created', { data: eventData(row) }));
      return toServiceAccount(row, []);
    }),
  );
}

export async function changeServiceAccount(
  deps: Deps,
  id: number,
  input: UpdateServiceAccountInput,
  by: Principal,
): Promise<ServiceAccount> {
  const name = input.name?.trim();
  if (name === '') throw invalidField('/body/name', 'The name cannot be empty.');
  return transaction(deps.database.db, async (tx) => {
    const before = await lockedAccount(tx, id);
    const rootRole = input.rootRole === undefined ? undefined : await rootRoleId(tx, input.rootRole);
    const changes = {
      ...(name !== undefined && name !== before.name && { name }),
      ...(rootRole !== undefined && rootRole !== before.root_role_id && { root_role_id: rootRole }),
    };
    const tokens = await listPats(tx, id);
    if (Object.keys(changes).length === 0) return toServiceAccount(before, tokens);
    const after = await updateUser(tx, id, changes);
    await appendEvent(
      tx,
      event(by, 'service-account-updated', { data: eventData(after), preData: eventData(before) }),
    );
    return toServiceAccount(after, tokens);
  });
}

export async function removeServiceAccount(deps: Deps, id: number, by: Principal): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    const before = await lockedAccount(tx, id);
    // Its tokens, project roles and group memberships go with it (ON DELETE CASCADE).
    await deleteUser(tx, id);
    await appendEvent(tx, event(by, 'service-account-deleted', { preData: eventData(before) }));
  });
}

export async function listTokens(deps: Deps, id: number) {
  const db = deps.database.db;
  if (!(await findServiceAccount(db, id))) throw notFoundAccount(id);
  return { pats: (await listPats(db, id)).map(toPat) };
}

export function createToken(
  deps: Deps,
  id: number,
  body: { description: string; expiresAt: string },
  by: Principal,
) {
  // Locked, so that a token is never added to an account being deleted.
  return issuePat(deps, id, body, by, (tx) => lockedAccount(tx, id));
}

export function removeToken(deps: Deps, id: number, tokenId: number, by: Principal): Promise<void> {
  return revokePat(
    deps,
    id,
    tokenId,
    by,
    `The service account ${id} has no token with id ${tokenId}.`,
    (tx) => lockedAccount(tx, id),
  );
}
