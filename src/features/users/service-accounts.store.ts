import type { Db } from '../../platform/db/index.js';
import type { PatRow } from './sessions.store.js';
import { findUser, type UserRow } from './users.store.js';

/**
 * Service accounts are rows of `users` with `is_service = true` and no password or email; their
 * tokens are rows of `personal_access_tokens` (sessions.store.ts has the functions for one user).
 */

/** The service account with this id (not a person); locked for the transaction with `lock`. */
export async function findServiceAccount(db: Db, id: number, lock = false): Promise<UserRow | undefined> {
  const row = await findUser(db, id, lock);
  return row?.is_service ? row : undefined;
}

export function insertServiceAccount(
  db: Db,
  account: { name: string; username: string; rootRole: number },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      name: account.name,
      username: account.username,
      email: null,
      image_url: null,
      password_hash: null,
      is_service: true,
      root_role_id: account.rootRole,
      scim_id: null,
      seen_at: null,
      deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The tokens of these users, oldest first. */
export function listPatsOf(db: Db, userIds: number[]): Promise<PatRow[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('personal_access_tokens')
    .select(['id', 'user_id', 'description', 'expires_at', 'seen_at', 'created_at'])
    .where('user_id', 'in', userIds)
    .orderBy('id')
    .execute() as Promise<PatRow[]>;
}
