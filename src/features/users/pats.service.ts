import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalidField, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import { deletePat, insertPat, listPats, type PatRow } from './sessions.store.js';
import { hashSecret, newPatSecret } from './users.auth.js';

/** The API shape of a token (never its secret or hash). */
export const toPat = (row: PatRow) => ({
  id: row.id,
  description: row.description ?? '',
  expiresAt: (row.expires_at as Date).toISOString(),
  createdAt: row.created_at.toISOString(),
  seenAt: row.seen_at ? row.seen_at.toISOString() : null,
  userId: row.user_id,
});

/** Personal access tokens belong to users; an API token has none and cannot make one. */
function owner(by: Principal): number {
  if (by.kind !== 'user') {
    throw new AppError(
      'InvalidOperationError',
      'Only users have personal access tokens; API tokens cannot own them.',
    );
  }
  return by.userId;
}

export async function listOwnPats(deps: Deps, by: Principal) {
  if (by.kind !== 'user') return { pats: [] };
  return { pats: (await listPats(deps.database.db, by.userId)).map(toPat) };
}

/**
 * Issues a token acting as `userId` (a person's own, or a service account's): expiry required and
 * in the future, the secret in this answer only, the event without it. `guard` runs first in the
 * transaction (a service account is locked so no token is added to one being deleted).
 */
export async function issuePat(
  deps: Deps,
  userId: number,
  body: { description: string; expiresAt: string },
  by: Principal,
  guard?: (tx: Db) => Promise<unknown>,
) {
  const expiresAt = new Date(body.expiresAt);
  if (!(expiresAt.getTime() > deps.now().getTime())) {
    throw invalidField('/body/expiresAt', 'The expiry must be in the future.');
  }
  const secret = newPatSecret();
  return transaction(deps.database.db, async (tx) => {
    await guard?.(tx);
    const row = await insertPat(tx, {
      secretHash: hashSecret(secret),
      userId,
      description: body.description,
      expiresAt,
    });
    await appendEvent(tx, {
      type: 'pat-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { id: row.id, description: row.description, expiresAt: body.expiresAt, userId },
    });
    return { ...toPat(row), secret };
  });
}

/** Deletes token `id` of `userId` (it stops working at once); `missing` is the 404 message. */
export async function revokePat(
  deps: Deps,
  userId: number,
  id: number,
  by: Principal,
  missing: string,
  guard?: (tx: Db) => Promise<unknown>,
): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    await guard?.(tx);
    const row = await deletePat(tx, userId, id);
    if (!row) throw notFound(missing);
    await appendEvent(tx, {
      type: 'pat-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: { id: row.id, description: row.description, userId },
      data: null,
    });
  });
}

export function createPat(deps: Deps, body: { description: string; expiresAt: string }, by: Principal) {
  return issuePat(deps, owner(by), body, by);
}

export function removePat(deps: Deps, id: number, by: Principal): Promise<void> {
  return revokePat(deps, owner(by), id, by, `You have no personal access token with id ${id}`);
}
