import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import type { Applier, Change } from '../changes/index.js';
import { avatarUrl } from '../users/index.js';
import type { ChangeRequestView } from './change-requests.schemas.js';
import {
  type ChangeRow,
  listChanges,
  listComments,
  listReviewers,
  listReviews,
  type PersonRow,
  people,
  type RequestRow,
} from './change-requests.store.js';

/** A person as the change request views show them (Unleash's `createdBy`); none once deleted. */
export function personOf(id: number | null, found: Map<number, PersonRow>) {
  const p = id === null ? undefined : found.get(id);
  const username = p?.username ?? p?.email ?? p?.name ?? null;
  const imageUrl = p?.imageUrl ?? (username ? avatarUrl(p?.email ?? username) : null);
  return { ...(id !== null && { id }), username, imageUrl };
}

/** A title until its author gives one, as Unleash's UI shows it. */
export const titleOf = (r: Pick<RequestRow, 'id' | 'title'>) => r.title ?? `Change request #${r.id}`;

/**
 * Why each change cannot apply as it stands (its target moved since it was made: the strategy was
 * edited or removed, the flag archived), by change id; checked one at a time, as it would apply.
 */
export async function conflictsOf(
  deps: Deps,
  changes: Applier,
  rows: ChangeRow[],
  by: Principal,
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (const row of rows) {
    const checked = await changes.check(deps, [row.change], by, true);
    if (!checked.ok) found.set(row.id, checked.error.message);
  }
  return found;
}

/**
 * The requests as the API shows them, with their changes by flag, reviews, comments and people;
 * `conflicts` for the changes of open requests when the caller asks (a single request's page).
 */
export async function viewsOf(
  deps: Deps,
  requests: RequestRow[],
  conflicts?: (rows: ChangeRow[]) => Promise<Map<number, string>>,
): Promise<ChangeRequestView[]> {
  const db = deps.database.db;
  const ids = requests.map((r) => r.id);
  const [changeRows, reviews, comments, reviewers] = await Promise.all([
    listChanges(db, ids),
    listReviews(db, ids),
    listComments(db, ids),
    listReviewers(db, ids),
  ]);
  const found = await people(db, [
    ...requests.map((r) => r.createdByUserId),
    ...changeRows.map((c) => c.createdByUserId),
    ...reviews.map((r) => r.userId),
    ...comments.map((c) => c.userId),
    ...reviewers.map((r) => r.userId),
  ]);
  // Each person once: their picture's address is a hash of their email.
  const shown = new Map<number | null, ReturnType<typeof personOf>>();
  const person = (id: number | null) => {
    let p = shown.get(id);
    if (!p) {
      p = personOf(id, found);
      shown.set(id, p);
    }
    return p;
  };
  const open = new Set(requests.filter((r) => isOpen(r.state)).map((r) => r.id));
  const conflicting = conflicts
    ? await conflicts(changeRows.filter((c) => open.has(c.changeRequestId)))
    : new Map<number, string>();
  const changesOf = byRequest(changeRows);
  const reviewsByRequest = byRequest(reviews);
  const commentsOf = byRequest(comments);
  const reviewersOf = byRequest(reviewers);
  return requests.map((r) => {
    const own = changesOf.get(r.id) ?? [];
    const changeView = (c: ChangeRow) => {
      const conflict = conflicting.get(c.id);
      const payload = (c.change as { payload?: unknown }).payload;
      return {
        id: c.id,
        action: c.change.action,
        ...(payload !== undefined && { payload }),
        ...(conflict !== undefined && { conflict }),
        createdBy: person(c.createdByUserId),
        createdAt: c.createdAt.toISOString(),
      };
    };
    const features = new Map<string, ReturnType<typeof changeView>[]>();
    const segments: (ReturnType<typeof changeView> & { name: string })[] = [];
    for (const c of own) {
      if ('feature' in c.change) {
        const list = features.get(c.change.feature) ?? [];
        list.push(changeView(c));
        features.set(c.change.feature, list);
      } else {
        segments.push({ ...changeView(c), name: segmentName(c.change) });
      }
    }
    const reviewsOf = (verdict: 'approved' | 'rejected') =>
      (reviewsByRequest.get(r.id) ?? [])
        .filter((v) => v.verdict === verdict)
        .map((v) => ({ createdBy: person(v.userId), createdAt: v.createdAt.toISOString() }));
    return {
      id: r.id,
      title: titleOf(r),
      project: r.project,
      environment: r.environment,
      state: r.state,
      minApprovals: r.minApprovals,
      createdBy: person(r.createdByUserId),
      createdAt: r.createdAt.toISOString(),
      features: [...features].map(([name, list]) => ({ name, changes: list })),
      segments,
      approvals: reviewsOf('approved'),
      rejections: reviewsOf('rejected'),
      comments: (commentsOf.get(r.id) ?? []).map((c) => ({
        id: c.id,
        text: c.text,
        createdBy: person(c.userId),
        createdAt: c.createdAt.toISOString(),
      })),
      reviewers: (reviewersOf.get(r.id) ?? []).map((v) => person(v.userId)),
      stateTimestamps: r.stateTimestamps,
      ...(r.state === 'Scheduled' && r.scheduledAt && r.scheduleStatus && { schedule: scheduleOf(r) }),
    };
  });
}

/** Rows grouped by their request, in their order. */
function byRequest<T extends { changeRequestId: number }>(rows: T[]): Map<number, T[]> {
  const grouped = new Map<number, T[]>();
  for (const row of rows) {
    const list = grouped.get(row.changeRequestId);
    if (list) list.push(row);
    else grouped.set(row.changeRequestId, [row]);
  }
  return grouped;
}

function scheduleOf(r: RequestRow) {
  const at = (r.scheduledAt as Date).toISOString();
  if (r.scheduleStatus === 'pending') return { scheduledAt: at, status: 'pending' as const };
  const reason = r.scheduleReason ?? '';
  return r.scheduleStatus === 'failed'
    ? { scheduledAt: at, status: 'failed' as const, reason, failureReason: reason }
    : { scheduledAt: at, status: 'suspended' as const, reason };
}

/** A segment change's segment, by the name it names or had when the change was made. */
function segmentName(change: Change): string {
  const payload = (change as { payload: { id: number; name?: string; snapshot?: { name?: string } } })
    .payload;
  return payload.name ?? payload.snapshot?.name ?? `segment ${payload.id}`;
}

export const OPEN_STATES = ['Draft', 'In review', 'Approved', 'Scheduled'] as const;
export const isOpen = (state: string) => (OPEN_STATES as readonly string[]).includes(state);
