import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid } from '../../platform/http/errors.js';
import {
  type FeedbackRow,
  listFeedback,
  listSplash,
  markSplashSeen,
  upsertFeedback,
} from './ui-state.store.js';

/**
 * What the admin UI remembers per person: questionnaires answered or declined and splash screens
 * seen. It is the person's own state, not configuration, so, like sessions, it records no event
 * (Unleash records none either). Only people have it: an API token gets a 400.
 */
function personOf(by: Principal): number {
  if (by.kind !== 'user')
    throw invalid('Only signed-in users have feedback and splash screens; API tokens do not.');
  return by.userId;
}

const toFeedback = (r: FeedbackRow) => ({
  userId: r.user_id,
  feedbackId: r.feedback_id,
  neverShow: r.never_show,
  given: r.given ? r.given.toISOString() : null,
});

/** Feedback given now (or declined for good with `neverShow`). */
export async function giveFeedback(
  deps: Deps,
  by: Principal,
  feedbackId: string,
  neverShow: boolean | undefined,
) {
  const row = await upsertFeedback(deps.database.db, personOf(by), feedbackId, {
    given: deps.now(),
    neverShow: neverShow ?? false,
  });
  return toFeedback(row);
}

export async function updateFeedback(
  deps: Deps,
  by: Principal,
  feedbackId: string,
  change: { neverShow?: boolean; given?: string | null },
) {
  const row = await upsertFeedback(deps.database.db, personOf(by), feedbackId, {
    ...(change.neverShow !== undefined && { neverShow: change.neverShow }),
    ...(change.given !== undefined && { given: change.given === null ? null : new Date(change.given) }),
  });
  return toFeedback(row);
}

export async function seeSplash(deps: Deps, by: Principal, splashId: string) {
  const userId = personOf(by);
  await markSplashSeen(deps.database.db, userId, splashId);
  return { userId, splashId, seen: true };
}

/** The person's feedback list and splash map, as `GET /api/admin/user` shows them. */
export async function uiStateOf(deps: Deps, userId: number) {
  const [feedback, splash] = await Promise.all([
    listFeedback(deps.database.db, userId),
    listSplash(deps.database.db, userId),
  ]);
  return {
    feedback: feedback.map(toFeedback),
    splash: Object.fromEntries(splash.map((s) => [s.splash_id, s.seen])),
  };
}
