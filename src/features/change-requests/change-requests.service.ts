import { Value } from 'typebox/value';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { ChangeRequestState } from '../../platform/db/schema.js';
import { allows, type Permission, type Principal } from '../../platform/http/auth.js';
import { AppError, invalid, notFound } from '../../platform/http/errors.js';
import { type Applier, CHANGE_KINDS, type Change, type ChangeAction } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import { type Place, protectedPlaces } from './change-requests.guard.js';
import type { ChangeInputType, StateInput } from './change-requests.schemas.js';
import {
  addComment,
  addReview,
  clearReviews,
  deleteChange,
  deleteRequest,
  draftOf,
  existingUsers,
  findRequest,
  insertChange,
  lastOwnEvent,
  listChanges,
  listReviews,
  listSettings,
  projectEnvironmentExists,
  type RequestRow,
  replaceChange,
  requiredApprovals,
  saveSetting,
  setReviewers,
  setState,
  setTitle,
  tagEvents,
} from './change-requests.store.js';
import { conflictsOf, titleOf, viewsOf } from './change-requests.view.js';

/** What the change request use cases need: the app's deps and the one applier of changes. */
export interface Ctx {
  deps: Deps;
  changes: Applier;
}

/** The permission a change needs in its project environment (the direct route's). */
const PERMISSION_OF: Record<ChangeAction, Permission> = {
  updateEnabled: 'UPDATE_FEATURE_ENVIRONMENT',
  addStrategy: 'CREATE_FEATURE_STRATEGY',
  updateStrategy: 'UPDATE_FEATURE_STRATEGY',
  deleteStrategy: 'DELETE_FEATURE_STRATEGY',
  reorderStrategy: 'UPDATE_FEATURE_STRATEGY',
  patchVariant: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  // The deprecated flag-level variants write every environment: their route needs UPDATE_FEATURE.
  updateFlagVariants: 'UPDATE_FEATURE',
  addDependency: 'UPDATE_FEATURE_DEPENDENCY',
  deleteDependency: 'UPDATE_FEATURE_DEPENDENCY',
  archiveFeature: 'DELETE_FEATURE',
  updateSegment: 'UPDATE_SEGMENT',
  deleteSegment: 'DELETE_SEGMENT',
  // The release plan routes' permission.
  addReleasePlan: 'UPDATE_FEATURE_STRATEGY',
  deleteReleasePlan: 'UPDATE_FEATURE_STRATEGY',
  startMilestone: 'UPDATE_FEATURE_STRATEGY',
  changeMilestoneProgression: 'UPDATE_FEATURE_STRATEGY',
  deleteMilestoneProgression: 'UPDATE_FEATURE_STRATEGY',
  resumeMilestoneProgression: 'UPDATE_FEATURE_STRATEGY',
  changeReleasePlanSafeguard: 'UPDATE_FEATURE_STRATEGY',
  deleteReleasePlanSafeguard: 'UPDATE_FEATURE_STRATEGY',
};

const refused = (message: string) => new AppError('NoAccessError', message);
const wrongState = (r: RequestRow, action: string) =>
  new AppError('ConflictError', `Change request ${r.id} is ${r.state}: it cannot be ${action}.`);
const unknownRequest = (id: number) => notFound(`Could not find change request ${id}.`);

/** The request as its viewer may see it: another person's draft is not there (404). */
function visible(r: RequestRow | undefined, id: number, by: Principal): RequestRow {
  if (!r || (r.state === 'Draft' && r.createdByUserId !== by.userId)) throw unknownRequest(id);
  return r;
}

/** Change requests are made and reviewed by people: their names stand on them (sessions, PATs). */
function person(by: Principal): number {
  if (by.kind !== 'user' || by.userId <= 0) {
    throw refused(
      'Change requests are made and reviewed by people: sign in, or use a personal access token.',
    );
  }
  return by.userId;
}

async function requireProjectEnvironment(db: Db, project: string, environment: string) {
  if (!(await projectEnvironmentExists(db, project, environment))) {
    throw notFound(`Project "${project}" has no environment "${environment}".`);
  }
}

/** Every `change-request-*` and `change-*` event: the request's id, project and environment. */
export async function record(
  db: Db,
  type: string,
  r: Pick<RequestRow, 'id' | 'project' | 'environment' | 'title'>,
  by: Principal,
  data: Record<string, unknown> = {},
  featureName?: string,
) {
  await appendEvent(db, {
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    project: r.project,
    environment: r.environment,
    ...(featureName !== undefined && { featureName }),
    data: { changeRequestId: r.id, changeRequestTitle: titleOf(r), ...data },
  });
}

// Configuration --------------------------------------------------------------------------------

export async function getConfig({ deps }: Ctx, project: string) {
  const rows = await listSettings(deps.database.db, project);
  if (rows.length === 0) throw notFound(`Could not find project "${project}".`);
  return rows.map((r) => ({
    environment: r.environment,
    type: r.type,
    changeRequestEnabled: r.requiredApprovals !== null,
    requiredApprovals: r.requiredApprovals,
  }));
}

export async function updateConfig(
  { deps }: Ctx,
  project: string,
  environment: string,
  body: { changeRequestsEnabled: boolean; requiredApprovals?: number | undefined },
  by: Principal,
) {
  await transaction(deps.database.db, async (tx) => {
    await requireProjectEnvironment(tx, project, environment);
    const approvals = body.changeRequestsEnabled ? (body.requiredApprovals ?? 1) : undefined;
    const before = await saveSetting(tx, project, environment, approvals);
    const state = (a: number | undefined) => ({
      changeRequestsEnabled: a !== undefined,
      requiredApprovals: a ?? null,
    });
    if (before === approvals) return;
    await appendEvent(tx, {
      type: 'change-request-configuration-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      project,
      environment,
      data: state(approvals),
      preData: state(before),
    });
  });
}

// Changes --------------------------------------------------------------------------------------

/** A change as the UI sends it, made a Change of the request's project environment (400 if it is none). */
function toChange(input: ChangeInputType, project: string, environment: string, path: string): Change {
  const kind = CHANGE_KINDS.get(input.action);
  if (!kind) {
    throw invalid(`Unknown change "${input.action}"; known: ${[...CHANGE_KINDS.keys()].join(', ')}.`, [
      { path: `${path}/action`, message: `Unknown change "${input.action}".` },
    ]);
  }
  const props = kind.properties as Record<string, unknown>;
  const candidate = {
    action: input.action,
    ...('project' in props && { project }),
    ...('feature' in props && { feature: input.feature }),
    ...('environment' in props && { environment }),
    ...(input.payload !== undefined && input.payload !== null && { payload: input.payload }),
  };
  const errors = [...Value.Errors(kind, candidate)];
  if (errors.length > 0) {
    throw invalid(
      `The change "${input.action}" is invalid: ${errors[0]?.instancePath || '/'} ${errors[0]?.message}.`,
      errors.map((e) => ({ path: `${path}${e.instancePath}`, message: e.message })),
    );
  }
  return Value.Clean(kind, Value.Clone(candidate)) as Change;
}

/** The caller may make this change directly, permissions aside from the gate (else 403). */
function mayPropose(by: Principal, change: Change, project: string, environment: string) {
  needs(by, PERMISSION_OF[change.action], [{ project, environment, approvals: 0 }]);
}

/**
 * Made against the state as it is now (a snapshot where the kind has one) and checked as it would
 * apply: a change that could not apply now (an unknown flag or strategy, bad values) is refused
 * with that error, before it is stored.
 */
async function prepared(ctx: Ctx, change: Change, by: Principal): Promise<Change> {
  const pinned = await ctx.changes.pin(ctx.deps.database.db, change);
  const checked = await ctx.changes.check(ctx.deps, [pinned], by, true);
  if (!checked.ok) {
    throw new AppError(checked.error.name, checked.error.message, checked.error.details);
  }
  return pinned;
}

/** Adds the changes to the caller's draft for the project environment (created when there is none). */
export async function addChanges(
  ctx: Ctx,
  project: string,
  environment: string,
  inputs: ChangeInputType[],
  by: Principal,
) {
  const userId = person(by);
  const db = ctx.deps.database.db;
  await requireProjectEnvironment(db, project, environment);
  const approvals = await requiredApprovals(db, project, environment);
  if (approvals === undefined) {
    throw new AppError(
      'InvalidOperationError',
      `Change requests are not enabled in the "${environment}" environment of project "${project}".`,
    );
  }
  const list = inputs.map((input, i) => toChange(input, project, environment, `/body/${i}`));
  for (const change of list) mayPropose(by, change, project, environment);
  const ready: Change[] = [];
  for (const change of list) ready.push(await prepared(ctx, change, by));
  const now = ctx.deps.now();
  const id = await transaction(db, async (tx) => {
    const draft = await draftOf(tx, project, environment, userId, approvals, now);
    const r = { id: draft.id, project, environment, title: null };
    if (draft.created) await record(tx, 'change-request-created', r, by);
    for (const change of ready) {
      const changeId = await insertChange(tx, draft.id, change, userId, now);
      const feature = 'feature' in change ? change.feature : undefined;
      await record(tx, 'change-added', r, by, { changeId, change }, feature);
    }
    return draft.id;
  });
  return getRequest(ctx, project, id, by);
}

/**
 * The request's author only, in a state that allows editing: an edit sends it back to Draft. An
 * unknown request is a 404 whoever asks; only a person can be an author.
 */
async function editable(tx: Db, project: string, id: number, by: Principal) {
  const found = await findRequest(tx, project, id, true);
  if (found) person(by);
  const r = visible(found, id, by);
  if (r.createdByUserId !== by.userId) throw refused('Only the author of a change request can change it.');
  if (!['Draft', 'In review', 'Approved'].includes(r.state)) throw wrongState(r, 'edited');
  return r;
}

async function backToDraft(tx: Db, r: RequestRow, now: Date) {
  if (r.state === 'Draft') return;
  await clearReviews(tx, r.id);
  await setState(tx, r.id, 'Draft', now);
}

async function changeOf(tx: Db, r: RequestRow, changeId: number) {
  const row = (await listChanges(tx, [r.id])).find((c) => c.id === changeId);
  if (!row) throw notFound(`Change request ${r.id} has no change ${changeId}.`);
  return row;
}

export async function editChange(
  ctx: Ctx,
  project: string,
  id: number,
  changeId: number,
  input: ChangeInputType,
  by: Principal,
) {
  person(by);
  const db = ctx.deps.database.db;
  const before = visible(await findRequest(db, project, id), id, by);
  const change = toChange(input, project, before.environment, '/body');
  mayPropose(by, change, project, before.environment);
  const ready = await prepared(ctx, change, by);
  await transaction(db, async (tx) => {
    const r = await editable(tx, project, id, by);
    await changeOf(tx, r, changeId);
    await replaceChange(tx, changeId, ready);
    await backToDraft(tx, r, ctx.deps.now());
    await record(
      tx,
      'change-edited',
      r,
      by,
      { changeId, change: ready },
      'feature' in ready ? ready.feature : undefined,
    );
  });
}

/** Discards one change; the request goes with its last change. */
export async function discardChange(ctx: Ctx, project: string, id: number, changeId: number, by: Principal) {
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = await editable(tx, project, id, by);
    const row = await changeOf(tx, r, changeId);
    await deleteChange(tx, changeId);
    const feature = 'feature' in row.change ? row.change.feature : undefined;
    await record(tx, 'change-discarded', r, by, { changeId }, feature);
    if ((await listChanges(tx, [r.id])).length === 0) {
      await deleteRequest(tx, r.id);
      await record(tx, 'change-request-discarded', r, by);
    } else {
      await backToDraft(tx, r, ctx.deps.now());
    }
  });
}

/** Discards the caller's draft whole. */
export async function discardDraft(ctx: Ctx, project: string, id: number, by: Principal) {
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = await editable(tx, project, id, by);
    if (r.state !== 'Draft') throw wrongState(r, 'discarded (cancel it instead)');
    await deleteRequest(tx, r.id);
    await record(tx, 'change-request-discarded', r, by);
  });
}

// Reading ----------------------------------------------------------------------------------------

/** One request with each open change's conflict; another person's draft is not there (404). */
export async function getRequest(ctx: Ctx, project: string, id: number, by: Principal) {
  const r = visible(await findRequest(ctx.deps.database.db, project, id), id, by);
  const [view] = await viewsOf(ctx.deps, [r], (rows) => conflictsOf(ctx.deps, ctx.changes, rows, by));
  return view as NonNullable<typeof view>;
}

// Transitions ------------------------------------------------------------------------------------

const APPROVE: Permission = 'APPROVE_CHANGE_REQUEST';
const APPLY: Permission = 'APPLY_CHANGE_REQUEST';

/**
 * Where the request's changes reach that requires change requests: its own project environment,
 * and for a change of the whole flag or of a segment, every other one it touches. Reviewing and
 * applying it take the permission in each, and as many approvals as the strictest asks.
 */
export async function reachOf(tx: Db, r: RequestRow): Promise<Place[]> {
  const places = new Map<string, Place>([
    [
      `${r.project}\u0000${r.environment}`,
      { project: r.project, environment: r.environment, approvals: r.minApprovals },
    ],
  ]);
  for (const row of await listChanges(tx, [r.id])) {
    if ('environment' in row.change) continue;
    for (const place of await protectedPlaces(tx, row.change))
      places.set(`${place.project}\u0000${place.environment}`, place);
  }
  return [...places.values()];
}

export function mayEverywhere(by: Principal, permission: Permission, places: Place[]) {
  return places.find((p) => !allows(by, permission, p.project, p.environment));
}

function needs(by: Principal, permission: Permission, places: Place[]) {
  const missing = mayEverywhere(by, permission, places);
  if (missing) {
    throw refused(
      `You don't have the required permissions to perform this operation. You need the "${permission}" permission in the "${missing.environment}" environment of project "${missing.project}".`,
    );
  }
}

function notAuthor(by: Principal, r: RequestRow, what: string) {
  if (r.createdByUserId === by.userId) throw refused(`You cannot ${what} your own change request.`);
}

/**
 * Applies the request's changes in the caller's transaction, through the one applier, all or
 * nothing; their events carry the request's id. A change whose target moved fails the whole.
 */
export async function applyChanges(ctx: Ctx, tx: Db, r: RequestRow, by: Principal) {
  const after = await lastOwnEvent(tx);
  const rows = await listChanges(tx, [r.id]);
  await ctx.changes.applyIn(
    tx,
    rows.map((c) => c.change),
    { deps: ctx.deps, by, throughChangeRequest: true },
  );
  await tagEvents(tx, after, r.id);
}

export async function changeState(ctx: Ctx, project: string, id: number, body: StateInput, by: Principal) {
  const userId = person(by);
  const now = ctx.deps.now();
  if (body.state === 'Scheduled') {
    const at = body.scheduledAt ? new Date(body.scheduledAt) : undefined;
    if (!at || Number.isNaN(at.getTime()))
      throw invalid('`scheduledAt` is required to schedule a change request.');
    if (at.getTime() <= now.getTime()) throw invalid('`scheduledAt` must be in the future.');
  }
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = visible(await findRequest(tx, project, id, true), id, by);
    const move = async (state: ChangeRequestState, event: string, data?: Record<string, unknown>) => {
      await setState(tx, r.id, state, now);
      await record(tx, event, r, by, data);
    };
    switch (body.state) {
      case 'In review': {
        if (r.createdByUserId !== userId)
          throw refused('Only the author can send a change request to review.');
        if (r.state !== 'Draft') throw wrongState(r, 'sent to review');
        if ((await listChanges(tx, [r.id])).length === 0)
          throw invalid('A change request without changes cannot be reviewed.');
        await move('In review', 'change-request-sent-to-review');
        break;
      }
      case 'Approved': {
        if (r.state !== 'In review') throw wrongState(r, 'approved');
        notAuthor(by, r, 'approve');
        const reach = await reachOf(tx, r);
        needs(by, APPROVE, reach);
        await addReview(tx, r.id, userId, 'approved', now);
        await record(tx, 'change-request-approval-added', r, by);
        const approvals = (await listReviews(tx, [r.id])).filter((v) => v.verdict === 'approved').length;
        if (approvals >= Math.max(...reach.map((p) => p.approvals)))
          await move('Approved', 'change-request-approved');
        break;
      }
      case 'Rejected': {
        if (r.state !== 'In review' && r.state !== 'Approved') throw wrongState(r, 'rejected');
        notAuthor(by, r, 'reject');
        needs(by, APPROVE, await reachOf(tx, r));
        await addReview(tx, r.id, userId, 'rejected', now);
        await move('Rejected', 'change-request-rejected');
        break;
      }
      case 'Applied': {
        if (r.state !== 'Approved' && r.state !== 'Scheduled') throw wrongState(r, 'applied');
        needs(by, APPLY, await reachOf(tx, r));
        await applyChanges(ctx, tx, r, by);
        await move('Applied', 'change-request-applied');
        break;
      }
      case 'Scheduled': {
        if (r.state !== 'Approved' && r.state !== 'Scheduled') throw wrongState(r, 'scheduled');
        needs(by, APPLY, await reachOf(tx, r));
        const at = new Date(body.scheduledAt as string);
        await setState(tx, r.id, 'Scheduled', now, { at, by: userId, status: 'pending', reason: null });
        await record(tx, 'change-request-scheduled', r, by, { scheduledDate: at.toISOString() });
        break;
      }
      case 'Cancelled': {
        if (!['Draft', 'In review', 'Approved', 'Scheduled'].includes(r.state))
          throw wrongState(r, 'cancelled');
        if (r.createdByUserId !== userId) needs(by, APPLY, await reachOf(tx, r));
        await move('Cancelled', 'change-request-cancelled');
        break;
      }
    }
    if (body.comment) await addComment(tx, r.id, userId, body.comment, now);
  });
}

// Comments, title, reviewers ---------------------------------------------------------------------

export async function comment(ctx: Ctx, project: string, id: number, text: string, by: Principal) {
  const userId = person(by);
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = visible(await findRequest(tx, project, id, true), id, by);
    await addComment(tx, r.id, userId, text, ctx.deps.now());
  });
}

export async function retitle(ctx: Ctx, project: string, id: number, title: string, by: Principal) {
  person(by);
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = visible(await findRequest(tx, project, id, true), id, by);
    if (r.createdByUserId !== by.userId)
      throw refused('Only the author of a change request can change its title.');
    await setTitle(tx, r.id, title);
  });
}

export async function requestReviewers(
  ctx: Ctx,
  project: string,
  id: number,
  reviewers: number[],
  by: Principal,
) {
  person(by);
  await transaction(ctx.deps.database.db, async (tx) => {
    const r = visible(await findRequest(tx, project, id, true), id, by);
    if (r.createdByUserId !== by.userId)
      throw refused('Only the author of a change request can ask for reviewers.');
    const wanted = [...new Set(reviewers)].sort((a, b) => a - b);
    const known = new Set(await existingUsers(tx, wanted));
    const missing = wanted.filter((u) => !known.has(u));
    if (missing.length > 0) throw notFound(`Could not find users ${missing.join(', ')}.`);
    await setReviewers(tx, r.id, wanted);
  });
}
