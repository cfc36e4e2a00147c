import type { Deps } from '../../deps.js';
import type { Database } from '../../platform/db/index.js';
import { AppError } from '../../platform/http/errors.js';
import { batchesPer } from '../../platform/keyed-batches.js';
import { hashSecret } from '../access/index.js';
import { findIntake, insertSignals, type NewSignal } from './signals.store.js';

/**
 * The intake's two costs, kept out of the request's way (issue 48's target: 500 signals/s beside
 * SDK polls):
 * - Who may post: an endpoint's name and token resolve through a short positive cache, as API
 *   tokens do (ADR 0005): no query in the common case. A change of an endpoint or a token clears
 *   this process's caches at once; other instances on the database follow within CACHE_TTL_MS.
 * - Storing: signals that arrive while an insert is in flight go into the next one, together
 *   (one statement and one commit for many); each request is answered once its row has committed.
 *   A batch the database refuses is retried one signal at a time, so one bad signal fails alone.
 */

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 1000;

export interface Intake {
  sourceId: number;
  tokenId: number;
  tokenName: string;
}

interface Cached {
  intake: Intake;
  enabled: boolean;
  until: number;
}

const caches = new WeakMap<Database, Map<string, Cached>>();
const live = new Set<WeakRef<Map<string, Cached>>>();

/** Forgets every cached endpoint and token of this process (after any change of them). */
export function forgetIntakes() {
  for (const ref of live) {
    const cache = ref.deref();
    if (cache) cache.clear();
    else live.delete(ref);
  }
}

function cacheOf(database: Database) {
  let cache = caches.get(database);
  if (!cache) {
    cache = new Map();
    caches.set(database, cache);
    live.add(new WeakRef(cache));
  }
  return cache;
}

/**
 * Who may post to the endpoint of that name: the endpoint and token the secret belongs to, else
 * the 401 (no token, a wrong one, or no such endpoint: names are not revealed), or the 403 of a
 * disabled endpoint.
 */
export async function intakeOf(deps: Deps, name: string, secret: string | undefined): Promise<Intake> {
  const refused = () =>
    new AppError(
      'AuthenticationRequired',
      'Send a token of this signal endpoint: Authorization: Bearer <token>.',
    );
  if (secret === undefined) throw refused();
  const hash = hashSecret(secret);
  const key = `${name}\u0000${hash}`;
  const cache = cacheOf(deps.database);
  const at = Date.now();
  let hit = cache.get(key);
  if (!hit || hit.until <= at) {
    cache.delete(key);
    const found = await findIntake(deps.database.db, name, hash);
    if (!found?.tokenId || found.tokenName === null) throw refused();
    if (cache.size >= CACHE_MAX) cache.clear();
    hit = {
      intake: { sourceId: found.id, tokenId: found.tokenId, tokenName: found.tokenName },
      enabled: found.enabled,
      until: at + CACHE_TTL_MS,
    };
    cache.set(key, hit);
  }
  if (!hit.enabled) throw new AppError('NoAccessError', `Signal endpoint "${name}" is disabled.`);
  return hit.intake;
}

const batches = batchesPer<Database, NewSignal, number>(async (database, items) => {
  try {
    const ids = await insertSignals(database.db, items);
    return ids.map((value) => ({ status: 'fulfilled' as const, value }));
  } catch (error) {
    if (items.length === 1) throw error;
    return Promise.allSettled(
      items.map(async (item) => (await insertSignals(database.db, [item]))[0] as number),
    );
  }
});

/** Stores the signal; resolves with its id once it has committed. */
export function receiveSignal(deps: Deps, intake: Intake, payload: unknown): Promise<number> {
  return batches(deps.database).submit('signals', { ...intake, payload, createdAt: deps.now() });
}
