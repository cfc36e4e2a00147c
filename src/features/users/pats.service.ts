import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
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

export async function createPat(deps: Deps, body: { description: string; expiresAt: string }, by: Principal) {
  const userId = owner(by);
  const expiresAt = new Date(body.expiresAt);
  if (!(expiresAt.getTime() > deps.now().getTime())) {
    throw invalidField('/body/expiresAt', 'The expiry must be in the future.');
  }
  const secret = newPatSecret();
  return transaction(deps.database.db, async (tx) => {
    const row = await insertPat(tx, {
      secretHash: hashSecret(secret),
      userId,
      description: body.description,
      expiresAt,
    });
    // The event never carries the secret.
    await appendEvent(tx, {
      type: 'pat-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { id: row.id, description: row.description, expiresAt: body.expiresAt, userId },
    });
    return { ...toPat(row), secret };
  });
}

export async function removePat(deps: Deps, id: number, by: Principal): Promise<void> {
  const userId = owner(by);
  await transaction(deps.database.db, async (tx) => {
    const row = await deletePat(tx, userId, id);
    if (!row) throw notFound(`You have no personal access token with id ${id}`);
    await appendEvent(tx, {
      type: 'pat-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: { id: row.id, description: row.description, userId },
      data: null,
    });
  });
}
