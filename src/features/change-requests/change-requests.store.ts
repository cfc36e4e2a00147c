import { type Kysely, sql } from 'kysely';
import type { ChangeRequestState, DB } from '../../platform/db/schema.js';
import type { Change } from '../changes/index.js';

type Db = Kysely<DB>;

export interface RequestRow {
  id: number;
  project: string;
  environment: string;
  title: string | null;
  state: ChangeRequestState;
  minApprovals: number;
  /** None once the author was deleted. */
  createdByUserId: number | null;
  createdAt: Date;
  stateTimestamps: Record<string, string>;
  scheduledAt: Date | null;
  scheduleStatus: 'pending' | 'failed' | 'suspended' | null;
  scheduleReason: string | null;
  scheduledByUserId: number | null;
}

export interface ChangeRow {
  id: number;
  changeRequestId: number;
  change: Change;
  createdByUserId: number | null;
  createdAt: Date;
}

export interface PersonRow {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  imageUrl: string | null;
}

const requestColumns = [
  'id',
  'project',
  'environment',
  'title',
  'state',
  'min_approvals as minApprovals',
  'created_by_user_id as createdByUserId',
  'created_at as createdAt',
  'state_timestamps as stateTimestamps',
  'scheduled_at as scheduledAt',
  'schedule_status as scheduleStatus',
  'schedule_reason as scheduleReason',
  'scheduled_by_user_id as scheduledByUserId',
] as const;

/** The environments of the project in display order, with their change request setting. */
export async function listSettings(db: Db, project: string) {
  return db
    .selectFrom('project_environments as pe')
    .innerJoin('environments as e', 'e.name', 'pe.environment_name')
    .leftJoin('change_request_settings as s', (j) =>
      j.onRef('s.project', '=', 'pe.project_id').onRef('s.environment', '=', 'pe.environment_name'),
    )
    .select(['e.name as environment', 'e.type', 's.required_approvals as requiredApprovals'])
    .where('pe.project_id', '=', project)
    .orderBy('e.sort_order')
    .orderBy('e.name')
    .execute();
}

/** Approvals required in the project environment; undefined when it needs no change requests. */
export async function requiredApprovals(db: Db, project: string, environment: string) {
  const row = await db
    .selectFrom('change_request_settings')
    .select('required_approvals')
    .where('project', '=', project)
    .where('environment', '=', environment)
    .executeTakeFirst();
  return row?.required_approvals;
}

export async function projectEnvironmentExists(db: Db, project: string, environment: string) {
  const row = await db
    .selectFrom('project_environments')
    .select('project_id')
    .where('project_id', '=', project)
    .where('environment_name', '=', environment)
    .executeTakeFirst();
  return row !== undefined;
}

/** Turns change requests on (with the approvals) or off; the setting before, if any. */
export async function saveSetting(
  db: Db,
  project: string,
  environment: string,
  approvals: number | undefined,
): Promise<number | undefined> {
  const before = await db
    .selectFrom('change_request_settings')
    .select('required_approvals')
    .where('project', '=', project)
    .where('environment', '=', environment)
    .forUpdate()
    .executeTakeFirst();
  if (approvals === undefined) {
    await db
      .deleteFrom('change_request_settings')
      .where('project', '=', project)
      .where('environment', '=', environment)
      .execute();
  } else {
    await db
      .insertInto('change_request_settings')
      .values({ project, environment, required_approvals: approvals })
      .onConflict((oc) =>
        oc.columns(['project', 'environment']).doUpdateSet({ required_approvals: approvals }),
      )
      .execute();
  }
  return before?.required_approvals;
}

/** The caller's open draft for the project environment, created when there is none (locked). */
export async function draftOf(
  db: Db,
  project: string,
  environment: string,
  userId: number,
  minApprovals: number,
  now: Date,
): Promise<{ id: number; created: boolean }> {
  // A draft that leaves Draft (submitted, discarded) while this waits for it is gone: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await sql<{ id: number }>`
      INSERT INTO change_requests (project, environment, created_by_user_id, min_approvals, created_at, state_timestamps)
      VALUES (${project}, ${environment}, ${userId}, ${minApprovals}, ${now}, ${JSON.stringify({ Draft: now.toISOString() })})
      ON CONFLICT (project, environment, created_by_user_id) WHERE state = 'Draft' DO NOTHING
      RETURNING id`.execute(db);
    const id = inserted.rows[0]?.id;
    if (id !== undefined) return { id, created: true };
    const existing = await db
      .selectFrom('change_requests')
      .select('id')
      .where('project', '=', project)
      .where('environment', '=', environment)
      .where('created_by_user_id', '=', userId)
      .where('state', '=', 'Draft')
      .forUpdate()
      .executeTakeFirst();
    if (existing) return { id: existing.id, created: false };
  }
  throw new Error('the draft kept changing state while changes were added to it');
}

export async function setMinApprovals(db: Db, id: number, approvals: number) {
  await db.updateTable('change_requests').set({ min_approvals: approvals }).where('id', '=', id).execute();
}

/** One request of the project, its row locked when `lock` (every transition holds it). */
export async function findRequest(db: Db, project: string, id: number, lock = false) {
  const query = db
    .selectFrom('change_requests')
    .select(requestColumns)
    .where('id', '=', id)
    .where('project', '=', project);
  return (lock ? query.forUpdate() : query).executeTakeFirst() as Promise<RequestRow | undefined>;
}

export interface RequestFilter {
  project?: string;
  ids?: number[];
  /** Drafts are their authors' own: others' are left out. */
  viewer: number;
  states?: readonly ChangeRequestState[];
  createdBy?: number;
  reviewer?: number;
  feature?: string;
}

function filtered(db: Db, f: RequestFilter) {
  let q = db
    .selectFrom('change_requests as r')
    .where((eb) => eb.or([eb('r.state', '!=', 'Draft'), eb('r.created_by_user_id', '=', f.viewer)]));
  if (f.project !== undefined) q = q.where('r.project', '=', f.project);
  if (f.ids) q = q.where('r.id', 'in', f.ids.length > 0 ? f.ids : [-1]);
  if (f.states) q = q.where('r.state', 'in', f.states);
  if (f.createdBy !== undefined) q = q.where('r.created_by_user_id', '=', f.createdBy);
  if (f.reviewer !== undefined) {
    const reviewer = f.reviewer;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('change_request_reviewers as v')
          .select('v.user_id')
          .whereRef('v.change_request_id', '=', 'r.id')
          .where('v.user_id', '=', reviewer),
      ),
    );
  }
  if (f.feature !== undefined) {
    const feature = f.feature;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('change_request_changes as c')
          .select('c.id')
          .whereRef('c.change_request_id', '=', 'r.id')
          .where('c.feature', '=', feature),
      ),
    );
  }
  return q;
}

export async function listRequests(db: Db, f: RequestFilter, page?: { offset: number; limit: number }) {
  let q = filtered(db, f)
    .select(requestColumns.map((c) => `r.${c}` as `r.${(typeof requestColumns)[number]}`))
    .orderBy('r.id', 'desc');
  if (page) q = q.offset(page.offset).limit(page.limit);
  return (await q.execute()) as RequestRow[];
}

export async function countRequests(db: Db, f: RequestFilter): Promise<number> {
  const row = await filtered(db, f)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countByState(db: Db, project: string) {
  const rows = await db
    .selectFrom('change_requests')
    .select(['state', (eb) => eb.fn.countAll<string>().as('n')])
    .where('project', '=', project)
    .groupBy('state')
    .execute();
  return new Map(rows.map((r) => [r.state, Number(r.n)]));
}

export async function listChanges(db: Db, requestIds: number[]): Promise<ChangeRow[]> {
  if (requestIds.length === 0) return [];
  const rows = await db
    .selectFrom('change_request_changes')
    .select([
      'id',
      'change_request_id as changeRequestId',
      'change',
      'created_by_user_id as createdByUserId',
      'created_at as createdAt',
    ])
    .where('change_request_id', 'in', requestIds)
    .orderBy('id')
    .execute();
  return rows as ChangeRow[];
}

export async function insertChange(db: Db, requestId: number, change: Change, userId: number, now: Date) {
  const row = await db
    .insertInto('change_request_changes')
    .values({
      change_request_id: requestId,
      feature: 'feature' in change ? change.feature : null,
      action: change.action,
      change: JSON.stringify(change),
      created_by_user_id: userId,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function replaceChange(db: Db, changeId: number, change: Change) {
  await db
    .updateTable('change_request_changes')
    .set({
      feature: 'feature' in change ? change.feature : null,
      action: change.action,
      change: JSON.stringify(change),
    })
    .where('id', '=', changeId)
    .execute();
}

export async function deleteChange(db: Db, changeId: number) {
  await db.deleteFrom('change_request_changes').where('id', '=', changeId).execute();
}

export async function deleteRequest(db: Db, id: number) {
  await db.deleteFrom('change_requests').where('id', '=', id).execute();
}

/** Moves the request to `state`, noting when it entered it; a schedule only with Scheduled. */
export async function setState(
  db: Db,
  id: number,
  state: ChangeRequestState,
  now: Date,
  schedule?: { at: Date; by: number; status: 'pending' | 'failed' | 'suspended'; reason: string | null },
) {
  await db
    .updateTable('change_requests')
    .set({
      state,
      state_timestamps: sql`state_timestamps || jsonb_build_object(${state}::text, ${now.toISOString()}::text)`,
      scheduled_at: schedule?.at ?? null,
      scheduled_by_user_id: schedule?.by ?? null,
      schedule_status: schedule?.status ?? null,
      schedule_reason: schedule?.reason ?? null,
    })
    .where('id', '=', id)
    .execute();
}

export async function setTitle(db: Db, id: number, title: string) {
  await db.updateTable('change_requests').set({ title }).where('id', '=', id).execute();
}

export async function addReview(
  db: Db,
  id: number,
  userId: number,
  verdict: 'approved' | 'rejected',
  now: Date,
) {
  await db
    .insertInto('change_request_reviews')
    .values({ change_request_id: id, user_id: userId, verdict, created_at: now })
    .onConflict((oc) =>
      oc.columns(['change_request_id', 'user_id']).doUpdateSet({ verdict, created_at: now }),
    )
    .execute();
}

export async function clearReviews(db: Db, id: number) {
  await db.deleteFrom('change_request_reviews').where('change_request_id', '=', id).execute();
}

export async function listReviews(db: Db, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('change_request_reviews')
    .select([
      'change_request_id as changeRequestId',
      'user_id as userId',
      'verdict',
      'created_at as createdAt',
    ])
    .where('change_request_id', 'in', ids)
    .orderBy('created_at')
    .execute();
}

export async function addComment(db: Db, id: number, userId: number, text: string, now: Date) {
  await db
    .insertInto('change_request_comments')
    .values({ change_request_id: id, user_id: userId, text, created_at: now })
    .execute();
}

export async function listComments(db: Db, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('change_request_comments')
    .select([
      'id',
      'change_request_id as changeRequestId',
      'user_id as userId',
      'text',
      'created_at as createdAt',
    ])
    .where('change_request_id', 'in', ids)
    .orderBy('id')
    .execute();
}

export async function setReviewers(db: Db, id: number, userIds: number[]) {
  await db.deleteFrom('change_request_reviewers').where('change_request_id', '=', id).execute();
  if (userIds.length === 0) return;
  await db
    .insertInto('change_request_reviewers')
    .values(userIds.map((user_id) => ({ change_request_id: id, user_id })))
    .execute();
}

export async function listReviewers(db: Db, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('change_request_reviewers')
    .select(['change_request_id as changeRequestId', 'user_id as userId'])
    .where('change_request_id', 'in', ids)
    .orderBy('user_id')
    .execute();
}

export async function people(db: Db, ids: (number | null)[]): Promise<Map<number, PersonRow>> {
  const known = [...new Set(ids.filter((id): id is number => id !== null))];
  if (known.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'email', 'image_url as imageUrl'])
    .where('id', 'in', known)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Active users, of those listed, that exist (requested reviewers must be people). */
export async function existingUsers(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

/** Active people, for the reviewers list (the service keeps those who may approve). */
export async function activeUsers(db: Db): Promise<PersonRow[]> {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'email', 'image_url as imageUrl'])
    .where('deleted_at', 'is', null)
    .where('is_service', '=', false)
    .orderBy('id')
    .execute();
}

/** Pending scheduled requests due at `now`, oldest first. */
export async function dueRequests(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('change_requests')
    .select(['id', 'project'])
    .where('state', '=', 'Scheduled')
    .where('schedule_status', '=', 'pending')
    .where('scheduled_at', '<=', now)
    .orderBy('scheduled_at')
    .limit(limit)
    .execute();
}

/** What became of a schedule whose time came without it applying. */
export async function setScheduleOutcome(db: Db, id: number, status: 'failed' | 'suspended', reason: string) {
  await db
    .updateTable('change_requests')
    .set({ schedule_status: status, schedule_reason: reason })
    .where('id', '=', id)
    .execute();
}

/** The newest event this transaction has recorded so far (0: none): where a tagging starts. */
export async function lastOwnEvent(db: Db): Promise<number> {
  const row = await sql<{ id: string | null }>`
    SELECT max(id)::text AS id FROM events WHERE tx = pg_current_xact_id()`.execute(db);
  return Number(row.rows[0]?.id ?? 0);
}

/**
 * Tags the events this transaction recorded after `after` with the change request that caused
 * them, in their data; events whose data is not an object (a list, as `strategy-order-changed`'s)
 * keep it as it is.
 */
export async function tagEvents(db: Db, after: number, requestId: number) {
  await sql`
    UPDATE events SET data = coalesce(data, '{}'::jsonb) || jsonb_build_object('changeRequestId', ${requestId}::int)
    WHERE tx = pg_current_xact_id() AND id > ${after} AND (data IS NULL OR jsonb_typeof(data) = 'object')`.execute(
    db,
  );
}

/**
 * Scheduled requests of the project with a change of one of the flags, of one of the strategies
 * (by id), or of the variants of one of the flags: what a change made directly now would meet.
 */
export async function scheduledTouching(
  db: Db,
  project: string,
  on: { features: string[]; strategyIds: string[]; variantsOf: string[] },
) {
  return db
    .selectFrom('change_requests as r')
    .select(['r.id', 'r.environment', 'r.title'])
    .distinct()
    .innerJoin('change_request_changes as c', 'c.change_request_id', 'r.id')
    .where('r.project', '=', project)
    .where('r.state', '=', 'Scheduled')
    .where((eb) =>
      eb.or([
        ...(on.features.length > 0 ? [eb('c.feature', 'in', on.features)] : []),
        ...(on.strategyIds.length > 0
          ? [eb(sql<string>`c.change -> 'payload' ->> 'id'`, 'in', on.strategyIds)]
          : []),
        ...(on.variantsOf.length > 0
          ? [
              eb.and([
                eb('c.action', 'in', ['patchVariant', 'updateFlagVariants']),
                eb('c.feature', 'in', on.variantsOf),
              ]),
            ]
          : []),
        eb.val(false),
      ]),
    )
    .orderBy('r.id')
    .execute();
}
