import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import { AppError } from '../../platform/http/errors.js';
import { noteUnloggedChange } from '../events/index.js';
import type { LoginThrottle } from './login.throttle.js';
import { verifyPassword } from './password.hash.js';
import { deleteExpiredSessions, deleteSession, insertSession } from './sessions.store.js';
import { hashSecret, newSessionSecret } from './users.auth.js';
import type { User } from './users.schemas.js';
import { findUserByLogin, normalLogin, recordLogin, toUser } from './users.store.js';

export const sessionTtlMs = (deps: Deps) => deps.config.SESSION_TTL_HOURS * 3_600_000;

const wrongCredentials = () =>
  new AppError('AuthenticationRequired', 'Wrong username or password, or the user has no password.');

/**
 * A password login: the user (by username or email) and a new session secret, to be sent as the
 * session cookie. Failed attempts are counted on the user; a success resets the count and
 * records `seenAt`. `from` is the client address and its throttle: a login it refuses (429,
 * LoginThrottled) is refused before the password is checked, whether or not it is right.
 */
export async function login(
  deps: Deps,
  credentials: { username: string; password: string },
  from: { address: string; throttle: LoginThrottle },
): Promise<{ user: User; secret: string; expiresAt: Date }> {
  const db = deps.database.db;
  const row = await findUserByLogin(db, credentials.username);
  // The account as the lookup sees it: a user's username and email share one budget.
  const account = row ? `user:${row.id}` : `name:${normalLogin(credentials.username)}`;
  from.throttle.attempt(from.address, account);
  // Verified even without a user, so the answer takes as long either way.
  const ok = await verifyPassword(
    credentials.password,
    row?.is_service ? null : (row?.password_hash ?? null),
  );
  if (!row) throw wrongCredentials();
  const now = deps.now();
  if (!ok) {
    await recordLogin(db, row.id, false, now);
    throw wrongCredentials();
  }
  from.throttle.succeeded(from.address, account);
  const secret = newSessionSecret();
  const expiresAt = new Date(now.getTime() + sessionTtlMs(deps));
  await transaction(db, async (tx) => {
    await recordLogin(tx, row.id, true, now);
    await insertSession(tx, hashSecret(secret), row.id, expiresAt);
    await deleteExpiredSessions(tx, row.id, now);
  });
  return { user: toUser({ ...row, login_attempts: 0, seen_at: now }), secret, expiresAt };
}

export async function logout(deps: Deps, secret: string | undefined): Promise<void> {
  if (!secret) return;
  await deleteSession(deps.database.db, hashSecret(secret));
  // Sessions are read through the read cache: the version moves, so every instance sees the end.
  await noteUnloggedChange(deps.database.db);
}
