import { type RawBuilder, sql } from 'kysely';

/**
 * Event ids come from a sequence at insert time, but transactions commit in their own order: a
 * reader that saw revision N may later find an event below N committed. A reader keeps the
 * transactions in progress at its read (PENDING_TRANSACTIONS, in the statement that reads) and
 * next time looks for their events (recordedBy), whatever their ids: every event records its
 * transaction (`events.tx`, migration 0035). Unlike a window of missing ids, nothing that many ids
 * consumed by rolled-back transactions (a trial import) pushes out of view. At most one per open
 * connection; always empty on PGlite (one connection).
 */
export const PENDING_TRANSACTIONS: RawBuilder<string[]> = sql<
  string[]
>`(SELECT coalesce(json_agg(x::text), '[]')
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x)`;

/** On `events`: recorded by one of these transactions (text xid8s from PENDING_TRANSACTIONS). */
export const recordedBy = (pending: string[]): RawBuilder<boolean> =>
  sql<boolean>`tx = ANY(${pending}::text[]::xid8[])`;
