import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface FeedbackRow {
  user_id: number;
  feedback_id: string;
  given: Date | null;
  never_show: boolean;
}

export async function upsertFeedback(
  db: Kysely<DB>,
  userId: number,
  feedbackId: string,
  change: { given?: Date | null; neverShow?: boolean },
): Promise<FeedbackRow> {
  const set = {
    ...(change.given !== undefined && { given: change.given }),
    ...(change.neverShow !== undefined && { never_show: change.neverShow }),
  };
  return db
    .insertInto('user_feedback')
    .values({
      user_id: userId,
      feedback_id: feedbackId,
      given: change.given ?? null,
      never_show: change.neverShow ?? false,
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'feedback_id'])
        .doUpdateSet(Object.keys(set).length > 0 ? set : { feedback_id: feedbackId }),
    )
    .returning(['user_id', 'feedback_id', 'given', 'never_show'])
    .executeTakeFirstOrThrow();
}

export async function markSplashSeen(db: Kysely<DB>, userId: number, splashId: string): Promise<void> {
  await db
    .insertInto('user_splash')
    .values({ user_id: userId, splash_id: splashId, seen: true })
    .onConflict((oc) => oc.columns(['user_id', 'splash_id']).doUpdateSet({ seen: true }))
    .execute();
}

export async function listFeedback(db: Kysely<DB>, userId: number): Promise<FeedbackRow[]> {
  return db
    .selectFrom('user_feedback')
    .select(['user_id', 'feedback_id', 'given', 'never_show'])
    .where('user_id', '=', userId)
    .orderBy('feedback_id')
    .execute();
}

export async function listSplash(db: Kysely<DB>, userId: number) {
  return db.selectFrom('user_splash').select(['splash_id', 'seen']).where('user_id', '=', userId).execute();
}
