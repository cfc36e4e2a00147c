import type { Db } from '../../platform/db/index.js';

/** Sessions and personal access tokens are stored by the SHA-256 of their secret only. */
export async function insertSession(db: Db, sidHash: string, userId: number, expiresAt: Date): Promise<void> {
  await db
    .insertInto('user_sessions')
    .values({ sid_hash: sidHash, user_id: userId, expires_at: expiresAt })
    .execute();
}

export function findSession(db: Db, sidHash: string) {
  return db
    .selectFrom('user_sessions')
    .select(['user_id', 'expires_at'])
    .where('sid_hash', '=', sidHash)
    .executeTakeFirst();
}

export async function extendSession(db: Db, sidHash: string, expiresAt: Date): Promise<void> {
  await db
    .updateTable('user_sessions')
    .set({ expires_at: expiresAt })
    .where('sid_hash', '=', sidHash)
    .execute();
}

export async function deleteSession(db: Db, sidHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('sid_hash', '=', sidHash).execute();
}

/** Ends every session of the user but `keep` (the one that changed the password). */
export async function deleteUserSessions(db: Db, userId: number, keep?: string): Promise<void> {
  let query = db.deleteFrom('user_sessions').where('user_id', '=', userId);
  if (keep) query = query.where('sid_hash', '<>', keep);
  await query.execute();
}

/** The user's expired sessions (tidied at each login, through the user index). */
export async function deleteExpiredSessions(db: Db, userId: number, now: Date): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

export interface PatRow {
  id: number;
  user_id: number;
  description: string | null;
  expires_at: Date | null;
  seen_at: Date | null;
  created_at: Date;
}

const PAT_COLUMNS = ['id', 'user_id', 'description', 'expires_at', 'seen_at', 'created_at'] as const;

export function insertPat(
  db: Db,
  pat: { secretHash: string; userId: number; description: string; expiresAt: Date },
): Promise<PatRow> {
  return db
    .insertInto('personal_access_tokens')
    .values({
      secret_hash: pat.secretHash,
      user_id: pat.userId,
      description: pat.description,
      expires_at: pat.expiresAt,
      seen_at: null,
    })
    .returning(PAT_COLUMNS)
    .executeTakeFirstOrThrow() as Promise<PatRow>;
}

export function listPats(db: Db, userId: number): Promise<PatRow[]> {
  return db
    .selectFrom('personal_access_tokens')
    .select(PAT_COLUMNS)
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute() as Promise<PatRow[]>;
}

export function deletePat(db: Db, userId: number, id: number): Promise<PatRow | undefined> {
  return db
    .deleteFrom('personal_access_tokens')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returning(PAT_COLUMNS)
    .executeTakeFirst() as Promise<PatRow | undefined>;
}

export function findPat(db: Db, secretHash: string) {
  return db
    .selectFrom('personal_access_tokens')
    .select(['user_id', 'expires_at'])
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
}
