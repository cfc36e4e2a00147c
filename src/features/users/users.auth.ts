import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/index.js';
import type { Grant, Principal } from '../../platform/http/auth.js';
import type { ReadCache, Reads } from '../../platform/read-cache.js';
import { hashSecret } from '../access/index.js';
import { noteUnloggedChange } from '../events/index.js';
import { extendSession, findPat, findSession } from './sessions.store.js';
import { findUser, loadGrants } from './users.store.js';

export const SESSION_COOKIE = 'flagship-session';
/** Personal access tokens look like Unleash's: `user:` and 56 hex characters. */
export const PAT_PREFIX = 'user:';

/** Sessions and tokens are stored as this hash of their secret, as API tokens are. */
export { hashSecret };
export const newSessionSecret = () => randomBytes(32).toString('base64url');
export const newPatSecret = () => `${PAT_PREFIX}${randomBytes(28).toString('hex')}`;

/**
 * A user's permissions now, read afresh (no cache: for work done on their behalf outside a
 * request, such as integration deliveries); undefined when there is no such user.
 */
export async function grantsOfUser(db: Db, userId: number): Promise<Grant[] | undefined> {
  if (!(await findUser(db, userId))) return undefined;
  return loadGrants(db, userId);
}

/**
 * A user (or service account) as the principal of work done on their behalf outside a request
 * (a scheduled change request, an action set's run), with their permissions now; undefined when
 * there is no such user.
 */
export async function principalOfUser(db: Db, userId: number): Promise<Principal | undefined> {
  const user = await findUser(db, userId);
  if (!user) return undefined;
  return { name: userDisplayName(user), userId, kind: 'user', grants: await loadGrants(db, userId) };
}

/** Who a user is on events: email, else username (as Unleash records it). */
export const userDisplayName = (u: { id: number; email: string | null; username: string | null }) =>
  u.email ?? u.username ?? `user-${u.id}`;

/**
 * Resolves sessions and personal access tokens to the user they belong to. The session or token,
 * the user and their permissions are read through the read cache, as part of the request's reads
 * when given its `scope` (one version probe for the whole request): a role change, a deletion, a
 * new project role or a deleted token records an event, and ending or extending a session moves
 * the version (`noteUnloggedChange`), so each applies on every instance at once.
 */
export function userResolver(db: Db, reads: ReadCache, now: () => Date, sessionTtlMs: number) {
  const principalOf = async (userId: number): Promise<Principal | null> => {
    const user = await findUser(db, userId);
    if (!user) return null;
    return {
      name: userDisplayName(user),
      userId: user.id,
      kind: 'user',
      grants: await loadGrants(db, user.id),
    };
  };
  // One cache entry per credential holds what it resolves to, so a request reads the cache once.
  const readsOf = (scope: object | undefined): Reads => (scope ? reads.of(scope) : reads);
  const resolve = <R extends { user_id: number }>(
    scope: object | undefined,
    key: string,
    find: () => Promise<R | undefined>,
  ) =>
    readsOf(scope).read(key, async () => {
      const row = await find();
      const principal = row ? await principalOf(row.user_id) : null;
      return row && principal ? { row, principal } : null;
    });

  return {
    async session(secret: string, scope?: object): Promise<Principal | null> {
      const hash = hashSecret(secret);
      const found = await resolve(scope, `session\u0000${hash}`, () => findSession(db, hash));
      const at = now().getTime();
      if (!found || found.row.expires_at.getTime() <= at) return null;
      // Sliding expiry: a session used in the second half of its life gets a full period again.
      if (found.row.expires_at.getTime() - at < sessionTtlMs / 2) {
        await extendSession(db, hash, new Date(at + sessionTtlMs));
        await noteUnloggedChange(db);
      }
      return found.principal;
    },
    async pat(secret: string, scope?: object): Promise<Principal | null> {
      const hash = hashSecret(secret);
      const found = await resolve(scope, `pat\u0000${hash}`, () => findPat(db, hash));
      const expiresAt = found?.row.expires_at;
      if (!found || (expiresAt && expiresAt.getTime() <= now().getTime())) return null;
      return found.principal;
    },
  };
}
