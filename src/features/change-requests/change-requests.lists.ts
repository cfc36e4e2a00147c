import { allows, type Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { grantsOfUser } from '../users/index.js';
import type { Ctx } from './change-requests.service.js';
import {
  activeUsers,
  countByState,
  countRequests,
  listRequests,
  listSettings,
  projectEnvironmentExists,
  type RequestFilter,
  scheduledTouching,
} from './change-requests.store.js';
import { OPEN_STATES, personOf, titleOf, viewsOf } from './change-requests.view.js';

/**
 * The lists of change requests: a project's, its open ones (for one flag), counts, what waits for
 * the caller, and the search. Another person's draft is never listed: drafts are their authors'.
 */

async function requireProject(ctx: Ctx, project: string) {
  if ((await listSettings(ctx.deps.database.db, project)).length === 0) {
    throw notFound(`Could not find project "${project}".`);
  }
}

export async function projectRequests(ctx: Ctx, project: string, by: Principal) {
  await requireProject(ctx, project);
  const rows = await listRequests(ctx.deps.database.db, { project, viewer: by.userId });
  return viewsOf(ctx.deps, rows);
}

/** Open requests of the project (the caller's draft among them), optionally only those changing a flag. */
export async function pendingRequests(ctx: Ctx, project: string, by: Principal, feature?: string) {
  await requireProject(ctx, project);
  const filter: RequestFilter = { project, viewer: by.userId, states: OPEN_STATES };
  const rows = await listRequests(
    ctx.deps.database.db,
    feature === undefined ? filter : { ...filter, feature },
  );
  return viewsOf(ctx.deps, rows);
}

export async function countOf(ctx: Ctx, project: string) {
  await requireProject(ctx, project);
  const counts = await countByState(ctx.deps.database.db, project);
  const n = (state: string) => counts.get(state as never) ?? 0;
  const reviewRequired = n('In review');
  const approved = n('Approved');
  const scheduled = n('Scheduled');
  const applied = n('Applied');
  const rejected = n('Rejected');
  return {
    total: reviewRequired + approved + scheduled + applied + rejected,
    applied,
    approved,
    rejected,
    reviewRequired,
    scheduled,
  };
}

/** Requests the caller may act on now: approve (in review, not theirs) or apply (approved). */
export async function actionable(ctx: Ctx, project: string, by: Principal) {
  await requireProject(ctx, project);
  const rows = await listRequests(ctx.deps.database.db, {
    project,
    viewer: by.userId,
    states: ['In review', 'Approved'],
  });
  const total = rows.filter((r) =>
    r.state === 'In review'
      ? r.createdByUserId !== by.userId && allows(by, 'APPROVE_CHANGE_REQUEST', r.project, r.environment)
      : allows(by, 'APPLY_CHANGE_REQUEST', r.project, r.environment),
  ).length;
  return { total };
}

/** People who may approve change requests in the project environment. */
export async function availableReviewers(ctx: Ctx, project: string, environment: string) {
  const db = ctx.deps.database.db;
  if (!(await projectEnvironmentExists(db, project, environment))) {
    throw notFound(`Project "${project}" has no environment "${environment}".`);
  }
  const reviewers = [];
  for (const user of await activeUsers(db)) {
    const grants = (await grantsOfUser(db, user.id)) ?? [];
    if (allows({ grants }, 'APPROVE_CHANGE_REQUEST', project, environment)) {
      reviewers.push({
        id: user.id,
        name: user.name,
        email: user.email ?? '',
        username: user.username,
        imageUrl: personOf(user.id, new Map([[user.id, user]])).imageUrl,
      });
    }
  }
  return { reviewers };
}

const CLOSED = ['Applied', 'Cancelled', 'Rejected'] as const;

/** `GET /api/admin/search/change-requests`: across projects, newest first, paged. */
export async function searchRequests(
  ctx: Ctx,
  query: {
    createdBy?: string;
    requestedApproverId?: string;
    state?: string;
    offset?: number;
    limit?: number;
  },
  by: Principal,
) {
  const db = ctx.deps.database.db;
  const id = (value: string | undefined) => {
    const n = value === undefined ? undefined : Number(value.replace(/^IS:/, ''));
    return n !== undefined && Number.isInteger(n) ? n : undefined;
  };
  const state = query.state?.replace(/^IS:/i, '').toLowerCase();
  const filter: RequestFilter = {
    viewer: by.userId,
    ...(state === 'open' && { states: OPEN_STATES }),
    ...(state === 'closed' && { states: CLOSED }),
    ...(id(query.createdBy) !== undefined && { createdBy: id(query.createdBy) }),
    ...(id(query.requestedApproverId) !== undefined && { reviewer: id(query.requestedApproverId) }),
  };
  const [rows, total] = await Promise.all([
    listRequests(db, filter, { offset: query.offset ?? 0, limit: query.limit ?? 50 }),
    countRequests(db, filter),
  ]);
  const views = await viewsOf(ctx.deps, rows);
  return {
    changeRequests: views.map((v, i) => ({
      id: v.id,
      ...(rows[i]?.title && { title: v.title }),
      project: v.project,
      environment: v.environment,
      state: v.state,
      createdBy: v.createdBy,
      createdAt: v.createdAt,
      features: v.features.map((f) => f.name),
      segments: [...new Set(v.segments.map((s) => s.name))],
    })),
    total,
  };
}

const many = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());

/** `…/change-requests/scheduled`: scheduled requests that change the flags, strategies or variants named. */
export async function scheduledWith(
  ctx: Ctx,
  project: string,
  query: { feature?: string | string[]; strategyId?: string | string[]; variantForFlag?: string | string[] },
) {
  await requireProject(ctx, project);
  const rows = await scheduledTouching(ctx.deps.database.db, project, {
    features: many(query.feature),
    strategyIds: many(query.strategyId),
    variantsOf: many(query.variantForFlag),
  });
  return rows.map((r) => ({
    id: r.id,
    environment: r.environment,
    ...(r.title !== null && { title: titleOf(r) }),
  }));
}
