import type { Db } from '../../platform/db/index.js';

export async function insertResetToken(
  db: Db,
  token: { hash: string; userId: number; expiresAt: Date; createdBy: string },
): Promise<void> {
  await db
    .insertInto('reset_tokens')
    .values({
      token_hash: token.hash,
      user_id: token.userId,
      expires_at: token.expiresAt,
      used_at: null,
      created_by: token.createdBy,
    })
    .execute();
}

/** The token if it can still be used (not used, not expired); `lock` for the transaction. */
export async function findUsableResetToken(db: Db, hash: string, now: Date, lock = false) {
  let query = db
    .selectFrom('reset_tokens')
    .select(['token_hash', 'user_id', 'expires_at'])
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Uses up every open link of the user (a password was set: the others are void too). */
export async function useResetTokens(db: Db, userId: number, now: Date): Promise<void> {
  await db
    .updateTable('reset_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}
