import { randomBytes } from 'node:crypto';
import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import { secretKey } from '../../platform/db/secret-key.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid, invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { openSecret, sealSecret } from '../../platform/secret-box.js';
import { appendEvent } from '../events/index.js';
import {
  checkPassword,
  findUsers,
  hashPassword,
  hashSecret,
  insertUser,
  toUser,
  type User,
  userEventData,
} from '../users/index.js';
import type {
  CreateInvitedUserInput,
  CreatePublicSignupTokenInput,
  PublicSignupToken,
  UpdatePublicSignupTokenInput,
} from './invites.schemas.js';
import {
  addTokenUser,
  findRole,
  findToken,
  insertToken,
  listTokens,
  type TokenRow,
  tokenUserIds,
  updateToken,
} from './invites.store.js';

/**
 * Public signup tokens (invite links), as Unleash's `/api/admin/invite-link/tokens` and `/invite`.
 *
 * Decisions (where Unleash differs or the docs are silent):
 * - Tokens are found by the SHA-256 hash of their secret (the `:token` routes and the public ones
 *   take the full secret). As Unleash, every answer to those who manage invite links (ADMIN: the
 *   creation, lists, GETs and PUTs, all `Cache-Control: no-store`) holds the full secret and the
 *   invite URL, so the link can be copied again: the secret is kept sealed with AES-256-GCM
 *   (platform/secret-box.ts, the key from SECRETS_KEY or the database; docs/adr/0010). A token
 *   made before migration 0034 has only its hash: it shows its display prefix (first 6
 *   characters and `…`) as `secret` and `url: null`, as does one sealed with a key since changed.
 * - The URL is `<PUBLIC_URL>/new-user?invite=<secret>`. Without PUBLIC_URL it is
 *   `http://localhost:<PORT><BASE_URI_PATH>`: the only address the service knows to be its own;
 *   set PUBLIC_URL for links that work from other machines.
 * - Valid = enabled and `expiresAt` after now (the exact instant; Unleash compares only the date
 *   part of the expiry, which makes a token invalid from midnight of its last day while it still
 *   reports `enabled: true`). An expired token always reports `enabled: false`.
 * - Create: `expiresAt` is capped at now + one calendar month (UTC), as Unleash; one in the past is
 *   a 400 (Unleash would create a token that never works). Update: no cap, the past is allowed
 *   (it ends the token at once); neither field → 400.
 * - `users`: read from `public_signup_tokens_user` (written by the signup), in signup order, as
 *   the user administration shows them; deleted users drop out (ON DELETE CASCADE).
 * - Signup: the token is checked before the password rules and before any hashing work, and again
 *   under a row lock in the transaction, so a link disabled meanwhile creates nobody. Unknown,
 *   disabled and expired tokens are one answer, 400 (Unleash: 400 without a body), so the public
 *   routes tell nobody which secrets exist. Duplicate username or email → 409 (as user
 *   administration; Unleash 400). `name` is optional (Unleash's schema requires it). The answer is
 *   201 with the user, as Unleash sends (its OpenAPI document says 200).
 * - Signup events (`user-created`, `public-signup-token-user-added`) are recorded by the system
 *   principal `unleash_system_user` (-1337), as Unleash records them; nobody is signed in then.
 *   `public-signup-token-user-added` carries `{secret: <display prefix>, userId}`.
 * - `public-signup-token-created` and `-updated` carry the token's `name`, `role` (id, name, type,
 *   description, as in the answers) and `expiresAt`; the event search finds them by the name.
 * - Events never hold a secret (only the display prefix), a hash, a sealed secret or a password.
 */

const VIEWER_ROLE = 3;
const SYSTEM: Principal = { name: 'unleash_system_user', userId: -1337, kind: 'user', grants: [] };

const displayPrefix = (secret: string) => `${secret.slice(0, 6)}…`;

const inviteUrl = (deps: Deps, secret: string) =>
  `${publicUrl(deps.config)}/new-user?invite=${encodeURIComponent(secret)}`;

/** now + 1 calendar month in UTC; the day is clamped to the month's length (Jan 31 → Feb 28/29). */
function oneMonthAfter(now: Date): Date {
  const next = new Date(now.getTime());
  const day = now.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}

const isValid = (row: { enabled: boolean; expires_at: Date }, now: Date) =>
  row.enabled && row.expires_at.getTime() > now.getTime();

/** The secret and link shown for a token: undefined when its secret cannot be recovered. */
type Shown = { secret: string; url: string } | undefined;

/** The key that seals secrets; read outside transactions (see secretKey). */
const sealingKey = (deps: Deps) => secretKey(deps.database, deps.config.SECRETS_KEY);

/** The token's secret and link, opened with the key; the row's hash binds the sealed value to it. */
function shown(deps: Deps, key: Buffer, row: TokenRow): Shown {
  const secret = row.secret_sealed === null ? undefined : openSecret(key, row.secret_sealed, row.secret_hash);
  return secret === undefined ? undefined : { secret, url: inviteUrl(deps, secret) };
}

const roleOf = (row: TokenRow) => ({
  id: row.role_id,
  name: row.role_name,
  type: row.role_type,
  ...(row.role_description !== null && { description: row.role_description }),
});

function view(row: TokenRow, users: User[], now: Date, reveal: Shown) {
  return {
    secret: reveal?.secret ?? row.display_prefix,
    url: reveal?.url ?? null,
    name: row.name,
    enabled: isValid(row, now),
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
    users,
    role: roleOf(row),
  } satisfies PublicSignupToken;
}

/** What the token events record: the stored state, identified by the display prefix, never the secret. */
const eventData = (row: TokenRow) => ({
  secret: row.display_prefix,
  name: row.name,
  role: roleOf(row),
  enabled: row.enabled,
  expiresAt: row.expires_at.toISOString(),
});

const event = (by: Principal, type: string, data: unknown, preData?: unknown) => ({
  type,
  createdBy: by.name,
  createdByUserId: by.userId,
  data,
  ...(preData !== undefined && { preData }),
});

const NOT_FOUND = 'Could not find public signup token.';

/** The tokens as their managers see them: with their secret and link, and who signed up with each. */
async function withUsers(deps: Deps, db: Db, rows: TokenRow[], key: Buffer) {
  const now = deps.now();
  const ids = await tokenUserIds(
    db,
    rows.map((r) => r.secret_hash),
  );
  const users = new Map((await findUsers(db, [...new Set([...ids.values()].flat())])).map((u) => [u.id, u]));
  return rows.map((row) =>
    view(
      row,
      (ids.get(row.secret_hash) ?? []).flatMap((id) => {
        const user = users.get(id);
        return user ? [toUser(user)] : [];
      }),
      now,
      shown(deps, key, row),
    ),
  );
}

export async function listPublicSignupTokens(deps: Deps) {
  const db = deps.database.db;
  const key = await sealingKey(deps);
  return { tokens: await withUsers(deps, db, await listTokens(db), key) };
}

export async function getPublicSignupToken(deps: Deps, secret: string): Promise<PublicSignupToken> {
  const db = deps.database.db;
  const key = await sealingKey(deps);
  const row = await findToken(db, hashSecret(secret));
  if (!row) throw notFound(NOT_FOUND);
  return (await withUsers(deps, db, [row], key))[0]!;
}

/** Creates a token for the Viewer role and answers with its secret and URL. Records `public-signup-token-created`. */
export async function createPublicSignupToken(
  deps: Deps,
  input: CreatePublicSignupTokenInput,
  by: Principal,
): Promise<PublicSignupToken> {
  const now = deps.now();
  const requested = new Date(input.expiresAt);
  if (requested.getTime() <= now.getTime()) {
    throw invalidField('/body/expiresAt', 'expiresAt must be in the future.');
  }
  const cap = oneMonthAfter(now);
  const expiresAt = requested.getTime() > cap.getTime() ? cap : requested;
  const secret = randomBytes(16).toString('hex');
  const secretHash = hashSecret(secret);
  const secretSealed = sealSecret(await sealingKey(deps), secret, secretHash);
  return transaction(deps.database.db, async (tx) => {
    const role = await findRole(tx, VIEWER_ROLE);
    if (!role) throw new Error('the Viewer role (id 3) is missing');
    await insertToken(tx, {
      secretHash,
      displayPrefix: displayPrefix(secret),
      secretSealed,
      name: input.name,
      expiresAt,
      roleId: role.id,
      createdBy: by.name,
      createdAt: now,
    });
    const row = await findToken(tx, secretHash);
    if (!row) throw new Error('the new token was not stored');
    await appendEvent(tx, event(by, 'public-signup-token-created', view(row, [], now, undefined)));
    return view(row, [], now, { secret, url: inviteUrl(deps, secret) });
  });
}

/** Changes the expiry and/or enabled flag; records `public-signup-token-updated` (none for a no-op). */
export async function updatePublicSignupToken(
  deps: Deps,
  secret: string,
  input: UpdatePublicSignupTokenInput,
  by: Principal,
): Promise<PublicSignupToken> {
  if (input.expiresAt === undefined && input.enabled === undefined) {
    throw invalid('Nothing to change: give expiresAt, enabled or both.');
  }
  const hash = hashSecret(secret);
  const key = await sealingKey(deps);
  const after = await transaction(deps.database.db, async (tx) => {
    const before = await findToken(tx, hash, true);
    if (!before) throw notFound(NOT_FOUND);
    await updateToken(tx, hash, {
      ...(input.expiresAt !== undefined && { expires_at: new Date(input.expiresAt) }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
    });
    const row = (await findToken(tx, hash))!;
    await appendEvent(tx, event(by, 'public-signup-token-updated', eventData(row), eventData(before)));
    return row;
  });
  return (await withUsers(deps, deps.database.db, [after], key))[0]!;
}

/** Whether the secret belongs to a token that is enabled and not expired. */
export async function isValidToken(deps: Deps, secret: string): Promise<boolean> {
  const row = await findToken(deps.database.db, hashSecret(secret));
  return row !== undefined && isValid(row, deps.now());
}

const invalidToken = () =>
  invalidField('/params/token', 'The invite link is not valid: it is unknown, disabled or expired.');

/** 400 unless the secret is a valid token (the public routes' one answer for every bad token). */
export async function checkToken(deps: Deps, secret: string): Promise<void> {
  if (!(await isValidToken(deps, secret))) throw invalidToken();
}

/**
 * Creates a user with the token's role, records who used the token and the two events, all in one
 * transaction. See the decisions above for the order of the checks.
 */
export async function signUp(deps: Deps, secret: string, input: CreateInvitedUserInput): Promise<User> {
  await checkToken(deps, secret);
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidField('/body/email', 'The email address is not valid.');
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  const hash = hashSecret(secret);
  try {
    return await transaction(deps.database.db, async (tx) => {
      // Locked: a concurrent disable or expiry change waits, or this signup sees its result.
      const token = await findToken(tx, hash, true);
      const now = deps.now();
      if (!token || !isValid(token, now)) throw invalidToken();
      const row = await insertUser(tx, {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.username !== undefined && { username: input.username }),
        email,
        passwordHash,
        rootRole: token.role_id,
      });
      await addTokenUser(tx, hash, row.id, now);
      await appendEvent(tx, event(SYSTEM, 'user-created', userEventData(row)));
      await appendEvent(
        tx,
        event(SYSTEM, 'public-signup-token-user-added', { secret: token.display_prefix, userId: row.id }),
      );
      return toUser(row);
    });
  } catch (error) {
    if (sqlState(error) === '23505') throw nameExists('A user with that username or email already exists.');
    throw error;
  }
}
