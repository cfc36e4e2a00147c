import { type Kysely, type Selectable, sql } from 'kysely';
import { PREPARE_ALWAYS } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';
import { appendEvents } from './events.batch.store.js';

export interface NewEvent {
  type: string;
  createdBy: string;
  createdByUserId: number | null;
  featureName?: string;
  project?: string;
  environment?: string;
  data?: unknown;
  preData?: unknown;
}

export interface EventRecord {
  id: number;
  type: string;
  createdAt: Date;
  createdBy: string;
  createdByUserId: number | null;
  featureName: string | null;
  project: string | null;
  environment: string | null;
  data: unknown;
  preData: unknown;
  tags: { type: string; value: string }[];
}

/**
 * Appends an event in the caller's transaction, so a change and its record commit together.
 * An event whose preData equals its data records nothing (a no-op change leaves no trace), and a
 * flag event carries the flag's current tags, as Unleash does.
 */
export async function appendEvent(db: Kysely<DB>, event: NewEvent): Promise<void> {
  // One definition of these rules and of the tags subquery: the batch insert's.
  await appendEvents(db, [event]);
}

export interface EventQuery {
  project?: string;
  featureName?: string;
  limit?: number;
}

/** Newest first: ids grow with insertion order, so id order is the order things happened. */
export async function listEvents(db: Kysely<DB>, query: EventQuery): Promise<EventRecord[]> {
  let q = db.selectFrom('events').selectAll().orderBy('id', 'desc');
  if (query.project !== undefined) q = q.where('project', '=', query.project);
  if (query.featureName !== undefined) q = q.where('feature_name', '=', query.featureName);
  if (query.limit !== undefined) q = q.limit(query.limit);
  return (await q.execute()).map(toEventRecord);
}

/** An events row as the API's record. */
export function toEventRecord(r: Selectable<DB['events']>): EventRecord {
  return {
    id: r.id,
    type: r.type,
    createdAt: r.created_at,
    createdBy: r.created_by,
    createdByUserId: r.created_by_user_id,
    featureName: r.feature_name,
    project: r.project,
    environment: r.environment,
    data: r.data,
    preData: r.pre_data,
    tags: r.tags,
  };
}

/** The number of events in the log, from the counter rows a trigger keeps (see migrations). */
export async function countAllEvents(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('event_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('count'), sql<number>`0`).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A value that changes whenever anything an admin read shows changes: the number of events (the
 * log only grows, and every configuration change appends one in its own transaction) and the
 * counter of changes that record no event. Reads the counter rows the events trigger keeps, so
 * it costs one small query, prepared by name: on PostgreSQL it runs before admin reads, and
 * parsing and planning it cost more than running it (~100 against ~175 µs of the database's CPU).
 */
export async function changeVersion(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ version: string }>`${sql.raw(PREPARE_ALWAYS)}SELECT
      (SELECT coalesce(sum(count), 0) FROM event_counts)::text || ':' ||
      (SELECT last_value FROM unlogged_changes)::text AS version`.execute(db);
  return rows[0]?.version ?? '';
}

/**
 * Call after the commit of a change that records no event (never inside its transaction: a
 * sequence moves at once, and a reader must not see the new version before the change).
 */
export async function noteUnloggedChange(db: Kysely<DB>): Promise<void> {
  await sql`SELECT nextval('unlogged_changes')`.execute(db);
}

/**
 * The users who have recorded events, by name: `name`, else username, else email. Events of API
 * tokens and of the system are not users' and are left out. Uses the users table read-only.
 */
export async function listEventCreators(db: Kysely<DB>): Promise<{ id: number; name: string }[]> {
  const result = await sql<{ id: number; name: string }>`
    SELECT u.id, coalesce(u.name, u.username, u.email, '') AS name
    FROM users u
    WHERE EXISTS (SELECT 1 FROM events e WHERE e.created_by_user_id = u.id)
    ORDER BY 2, 1`.execute(db);
  return result.rows;
}
