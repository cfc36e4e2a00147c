import { createHash, randomBytes } from 'node:crypto';
import { type Db, transaction } from '../../platform/db/index.js';
import { type Principal, type ResolvePrincipal, TOKEN_USER_ID } from '../../platform/http/auth.js';
import { countTokens, findTokenByHash, insertToken, lockTokenBootstrap } from './api-tokens.store.js';

/** Only this hash of a token is stored; the secret itself is shown once and never kept. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * An INIT_ADMIN_API_TOKENS secret (after `*:*.`) has at least this many characters: a token given
 * by hand must be as hard to guess as a generated one (56 hex characters), not a short password.
 */
export const INIT_TOKEN_MIN_SECRET = 32;
const ADMIN_TOKEN = /^\*:\*\.[A-Za-z0-9_.~-]+$/;

export function displayPrefix(secret: string): string {
  const dot = secret.indexOf('.');
  return `${secret.slice(0, dot + 1)}${secret.slice(dot + 1, dot + 7)}…`;
}

export function toPrincipal(row: NonNullable<Awaited<ReturnType<typeof findTokenByHash>>>): Principal {
  if (row.type === 'admin') {
    return {
      name: row.tokenName,
      userId: TOKEN_USER_ID,
      kind: 'admin-token',
      grants: [{ permission: 'ADMIN' }],
    };
  }
  const permission = row.type === 'client' ? 'CLIENT' : 'FRONTEND';
  return {
    name: row.tokenName,
    userId: TOKEN_USER_ID,
    kind: row.type === 'client' ? 'client-token' : 'frontend-token',
    grants: row.projects.map((project) => ({
      permission,
      project,
      environment: row.environment ?? undefined,
    })),
    scope: { projects: row.projects, environment: row.environment ?? 'default' },
  };
}

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

/**
 * The caches of this process's resolvers, so that deleting a token here takes effect at once. Held
 * weakly: a closed app's resolver (tests build many apps per process) leaves with its app.
 */
const caches = new Set<WeakRef<Map<string, unknown>>>();

/**
 * Drops the token from this process's caches (after delete or expiry change). Other instances
 * sharing the database still honour a cached token for up to CACHE_TTL_MS.
 */
export function forgetCachedToken(secretHash: string): void {
  for (const ref of caches) {
    const cache = ref.deref();
    if (cache) cache.delete(secretHash);
    else caches.delete(ref);
  }
}

/**
 * Token lookup with a short positive cache: a request costs no query in the common case, and a
 * deleted token stops working within CACHE_TTL_MS on every instance.
 */
export function tokenResolver(
  db: Db,
  now: () => number = Date.now,
): ResolvePrincipal & { known(secret: string): Principal | undefined } {
  const cache = new Map<string, { principal: Principal; until: number }>();
  caches.add(new WeakRef(cache));
  // The hash of each secret found valid, so that a request with a known token costs no sha256
  // (bounded as the cache; only in memory, never logged). The principal is still kept by hash:
  // TTL and `forgetCachedToken` apply as before.
  const hashes = new Map<string, string>();
  // Lookups of one token in flight at once share one query (a change re-checks the token of every
  // open stream; a thousand streams of one SDK fleet are one token).
  const inFlight = new Map<string, Promise<Principal | null>>();
  const lookup = async (secret: string, hash: string) => {
    const row = await findTokenByHash(db, hash);
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= now())) {
      cache.delete(hash);
      hashes.delete(secret);
      return null;
    }
    const principal = toPrincipal(row);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(hash, { principal, until: now() + CACHE_TTL_MS });
    if (hashes.size >= CACHE_MAX) hashes.clear();
    hashes.set(secret, hash);
    return principal;
  };
  /** The principal of a token found valid within CACHE_TTL_MS, without a lookup. */
  const known = (secret: string): Principal | undefined => {
    const hash = hashes.get(secret);
    const hit = hash === undefined ? undefined : cache.get(hash);
    return hit && hit.until > now() ? hit.principal : undefined;
  };
  const resolve = (secret: string) => {
    const hash = hashes.get(secret) ?? hashSecret(secret);
    const hit = cache.get(hash);
    if (hit && hit.until > now()) return Promise.resolve(hit.principal);
    let pending = inFlight.get(hash);
    if (!pending) {
      pending = lookup(secret, hash).finally(() => inFlight.delete(hash));
      inFlight.set(hash, pending);
    }
    return pending;
  };
  return Object.assign(resolve, { known });
}

export function parseInitTokens(value: string | undefined): string[] {
  const tokens = (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  // The messages name the token by its place in the list, never by its secret (start-up output is logged).
  tokens.forEach((token, index) => {
    const which = `token ${index + 1} of ${tokens.length}`;
    if (!ADMIN_TOKEN.test(token)) {
      throw new Error(
        `INIT_ADMIN_API_TOKENS: ${which} does not look like "*:*.<secret>" (letters, digits and _.~- only)`,
      );
    }
    const secretLength = token.length - '*:*.'.length;
    if (secretLength < INIT_TOKEN_MIN_SECRET) {
      throw new Error(
        `INIT_ADMIN_API_TOKENS: the secret of ${which} has ${secretLength} characters; at least ${INIT_TOKEN_MIN_SECRET} are required`,
      );
    }
  });
  return tokens;
}

/**
 * Start-up: creates the INIT_ADMIN_API_TOKENS tokens; on a database without any token and without
 * that variable, generates one admin token and returns its secret so it can be printed once.
 */
export async function ensureAdminTokens(db: Db, initTokens: string[]): Promise<string | undefined> {
  for (const secret of initTokens) {
    await insertToken(db, adminToken(secret, 'admin'));
  }
  if (initTokens.length > 0) return undefined;
  // Instances starting together on an empty database: only the first to take the lock generates.
  return transaction(db, async (tx) => {
    await lockTokenBootstrap(tx);
    if ((await countTokens(tx)) > 0) return undefined;
    const secret = `*:*.${randomBytes(28).toString('hex')}`;
    await insertToken(tx, adminToken(secret, 'admin'));
    return secret;
  });
}

function adminToken(secret: string, tokenName: string) {
  return {
    secretHash: hashSecret(secret),
    tokenName,
    type: 'admin' as const,
    environment: '*',
    projects: ['*'],
    displayPrefix: displayPrefix(secret),
    createdBy: 'unleash_system_user',
  };
}
