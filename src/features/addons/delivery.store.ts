import { type Kysely, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB } from '../../platform/db/schema.js';
import { PENDING_TRANSACTIONS, recordedBy } from '../events/index.js';
import type { DeliveredEvent } from './addons.schemas.js';
import { ADDON_COLUMNS, type AddonRow, type IntegrationEventRow, tables } from './addons.store.js';

/** The fields of an event that decide which addons receive it. */
export interface EventHead {
  id: number;
  type: string;
  project: string | null;
  environment: string | null;
  feature_name: string | null;
  created_at: Date;
}

export interface Cursor {
  lastEventId: number;
  gaps: { id: number; seenAt: string }[];
  /** Transactions in progress at the last round's read (xid8 as text). */
  pending: string[];
}

export async function readCursor(db: Kysely<DB>): Promise<Cursor> {
  const row = await tables(db)
    .selectFrom('addon_delivery_cursor')
    .select(['last_event_id', 'gaps', 'pending'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return { lastEventId: Number(row.last_event_id), gaps: row.gaps, pending: row.pending };
}

export async function writeCursor(db: Kysely<DB>, cursor: Cursor): Promise<void> {
  await tables(db)
    .updateTable('addon_delivery_cursor')
    .set({
      last_event_id: cursor.lastEventId,
      gaps: JSON.stringify(cursor.gaps),
      pending: JSON.stringify(cursor.pending),
    })
    .where('id', '=', 1)
    .execute();
}

/**
 * Events after the cursor, oldest first; the missed ones that have appeared since (ids kept as
 * gaps, or recorded by a transaction `pending` at the last round); and the transactions in progress
 * now, whose events this read cannot see (PENDING_TRANSACTIONS in the events slice): all from one
 * snapshot, so a transaction is either seen or listed. Reads the events slice's table, never
 * writes it.
 */
export async function eventHeads(
  db: Kysely<DB>,
  afterId: number,
  limit: number,
  missedIds: number[],
  pending: string[],
): Promise<{ fresh: EventHead[]; found: EventHead[]; pending: string[] }> {
  const columns = ['id', 'type', 'project', 'environment', 'feature_name', 'created_at'] as const;
  const read = await db
    .selectNoFrom((eb) => [
      jsonArrayFrom(
        eb.selectFrom('events').select(columns).where('id', '>', afterId).orderBy('id').limit(limit),
      ).as('fresh'),
      PENDING_TRANSACTIONS.as('pending'),
    ])
    .executeTakeFirstOrThrow();
  const missed = missedIds.length > 0 || pending.length > 0;
  const found = !missed
    ? []
    : await db
        .selectFrom('events')
        .select(columns)
        .where((eb) =>
          eb.or([
            ...(missedIds.length > 0 ? [eb('id', 'in', missedIds)] : []),
            ...(pending.length > 0 ? [recordedBy(pending)] : []),
          ]),
        )
        .where('id', '<=', afterId)
        .orderBy('id')
        .execute();
  // Through JSON, the id and the time of the fresh events come as a number and a string.
  const head = <E extends Omit<EventHead, 'created_at'> & { created_at: Date | string }>(
    e: E,
  ): EventHead => ({
    ...e,
    id: Number(e.id),
    created_at: new Date(e.created_at),
  });
  return { fresh: read.fresh.map(head), found: found.map(head), pending: read.pending };
}

/** Queues deliveries; one per (addon, event) however often it is offered. */
export async function enqueue(
  db: Kysely<DB>,
  rows: { addonId: number; eventId: number }[],
  due: Date,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await tables(db)
      .insertInto('addon_deliveries')
      .values(chunk.map((r) => ({ addon_id: r.addonId, event_id: r.eventId, next_attempt_at: due })))
      .onConflict((oc) => oc.columns(['addon_id', 'event_id']).doNothing())
      .execute();
  }
}

export interface Claimed {
  id: number;
  addonId: number;
  eventId: number;
  /** This attempt's number, from 1. */
  attempt: number;
}

/** Takes up to `limit` due deliveries nobody is sending, for this instance until `until`. */
export async function claimDue(db: Kysely<DB>, now: Date, until: Date, limit: number): Promise<Claimed[]> {
  const t = tables(db);
  const due = t
    .selectFrom('addon_deliveries')
    .select('id')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .orderBy('id')
    .limit(limit);
  const rows = await t
    .updateTable('addon_deliveries')
    .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', due)
    .returning(['id', 'addon_id', 'event_id', 'attempts'])
    .execute();
  return rows
    .map((r) => ({ id: Number(r.id), addonId: r.addon_id, eventId: Number(r.event_id), attempt: r.attempts }))
    .sort((a, b) => a.id - b.id);
}

/** The events to send, as the API shows events (and Unleash sends them). */
export async function loadEvents(db: Kysely<DB>, ids: number[]): Promise<Map<number, DeliveredEvent>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        createdAt: r.created_at.toISOString(),
        type: r.type,
        createdBy: r.created_by,
        createdByUserId: r.created_by_user_id,
        environment: r.environment,
        project: r.project,
        featureName: r.feature_name,
        data: r.data,
        preData: r.pre_data,
        tags: r.tags,
      },
    ]),
  );
}

export async function loadAddons(db: Kysely<DB>, ids: number[]): Promise<Map<number, AddonRow>> {
  if (ids.length === 0) return new Map();
  const rows = await tables(db).selectFrom('addons').select(ADDON_COLUMNS).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** How many delivery records each addon keeps; older ones are deleted as new ones come. */
const LOG_KEPT = 1000;

export type Outcome = Pick<IntegrationEventRow, 'state' | 'state_details' | 'details'> & {
  event: DeliveredEvent;
};

/**
 * Records an attempt's outcome for the addon (unless it was deleted meanwhile), then either
 * forgets the delivery (`retryAt` undefined) or makes it due again at `retryAt`.
 */
export async function recordAttempt(
  db: Kysely<DB>,
  delivery: Claimed,
  outcome: Outcome,
  retryAt: Date | undefined,
): Promise<void> {
  const t = tables(db);
  // A key-share lock: the addon cannot be deleted until this record is in.
  const addon = await t
    .selectFrom('addons')
    .select('id')
    .where('id', '=', delivery.addonId)
    .forKeyShare()
    .executeTakeFirst();
  if (addon) {
    await t
      .insertInto('integration_events')
      .values({
        integration_id: delivery.addonId,
        state: outcome.state,
        state_details: outcome.state_details,
        event: JSON.stringify(outcome.event),
        details: JSON.stringify(outcome.details),
      })
      .execute();
    await sql`DELETE FROM integration_events WHERE integration_id = ${delivery.addonId} AND id <= (
        SELECT id FROM integration_events WHERE integration_id = ${delivery.addonId}
        ORDER BY id DESC OFFSET ${LOG_KEPT} LIMIT 1)`.execute(db);
  }
  if (retryAt === undefined || !addon) await dropDelivery(db, delivery.id);
  else
    await t
      .updateTable('addon_deliveries')
      .set({ next_attempt_at: retryAt, claimed_until: null })
      .where('id', '=', delivery.id)
      .execute();
}

export async function dropDelivery(db: Kysely<DB>, id: number): Promise<void> {
  await tables(db).deleteFrom('addon_deliveries').where('id', '=', id).execute();
}

/** Gives a claimed delivery back untried: due at once, for any instance. */
export async function releaseClaim(db: Kysely<DB>, id: number): Promise<void> {
  await tables(db)
    .updateTable('addon_deliveries')
    .set((eb) => ({ claimed_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', id)
    .execute();
}
