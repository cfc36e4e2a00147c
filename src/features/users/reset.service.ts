import { randomBytes } from 'node:crypto';
import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { findUsableResetToken, insertResetToken } from './reset.store.js';
import { hashSecret } from './users.auth.js';
import { changePassword } from './users.service.js';
import { findUser, findUserByLogin, toUser } from './users.store.js';

/**
 * One-time links to set a password (as Unleash's reset tokens): made when an admin creates a user
 * without a password (the `inviteLink` of the answer) or asks for a reset. Only a hash is kept, so
 * the link is in that answer only. A link lasts RESET_LINK_DAYS days and works once; setting a
 * password through it (or any other way, see changePassword) voids the user's other links.
 */
const RESET_LINK_DAYS = 7;

/** Makes a link for the user in the caller's transaction; returns its URL. */
export async function createResetLink(
  deps: Deps,
  db: Db,
  userId: number,
  by: Principal,
  page: 'new-user' | 'reset-password',
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(deps.now().getTime() + RESET_LINK_DAYS * 86_400_000);
  await insertResetToken(db, { hash: hashSecret(secret), userId, expiresAt, createdBy: by.name });
  return `${publicUrl(deps.config)}/${page}?token=${encodeURIComponent(secret)}`;
}

/** `POST /api/admin/user-admin/reset-password` `{id}`: the user by email or username (as Unleash). */
export async function resetPasswordLink(
  deps: Deps,
  id: string,
  by: Principal,
): Promise<{ resetPasswordUrl: string }> {
  return transaction(deps.database.db, async (tx) => {
    const user = await findUserByLogin(tx, id);
    if (!user) throw notFound(`Could not find a user with email or username "${id}"`);
    return { resetPasswordUrl: await createResetLink(deps, tx, user.id, by, 'reset-password') };
  });
}

export const invalidLink = () =>
  new AppError('AuthenticationRequired', 'The link is not valid: it is unknown, used already or expired.');

/** `GET /auth/reset/validate?token=`: the user the link is for. */
export async function validateResetLink(deps: Deps, token: string) {
  const row = await findUsableResetToken(deps.database.db, hashSecret(token), deps.now());
  const user = row && (await findUser(deps.database.db, row.user_id));
  if (!user) throw invalidLink();
  return toUser(user);
}

/** `POST /auth/reset/password` `{token, password}`: sets the password once (rules enforced). */
export async function setPasswordWithLink(deps: Deps, token: string, password: string): Promise<void> {
  const row = await findUsableResetToken(deps.database.db, hashSecret(token), deps.now());
  if (!row) throw invalidLink();
  const system: Principal = { name: 'unleash_system_user', userId: -1337, kind: 'user', grants: [] };
  await changePassword(deps, row.user_id, password, system, undefined, hashSecret(token));
}
