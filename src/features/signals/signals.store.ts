import type { Kysely, Selectable } from 'kysely';
import type { DB, SignalEndpointsTable, SignalEndpointTokensTable } from '../../platform/db/schema.js';
import type { Signal, SignalEndpoint, SignalEndpointInput, SignalEndpointToken } from './signals.schemas.js';

type Db = Kysely<DB>;

export function toToken(row: Selectable<SignalEndpointTokensTable>): SignalEndpointToken {
  return {
    id: row.id,
    name: row.name,
    signalEndpointId: row.signal_endpoint_id,
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id,
  };
}

function toEndpoint(
  row: Selectable<SignalEndpointsTable>,
  tokens: Selectable<SignalEndpointTokensTable>[],
): SignalEndpoint {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    createdByUserId: row.created_by_user_id,
    tokens: tokens.filter((t) => t.signal_endpoint_id === row.id).map(toToken),
  };
}

const tokenRows = (db: Db, endpointIds: number[]) =>
  endpointIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('signal_endpoint_tokens')
        .selectAll()
        .where('signal_endpoint_id', 'in', endpointIds)
        .orderBy('id')
        .execute();

export async function listEndpoints(db: Db): Promise<SignalEndpoint[]> {
  const rows = await db.selectFrom('signal_endpoints').selectAll().orderBy('id').execute();
  const tokens = await tokenRows(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toEndpoint(r, tokens));
}

export async function findEndpoint(db: Db, id: number, lock = false): Promise<SignalEndpoint | undefined> {
  const query = db.selectFrom('signal_endpoints').selectAll().where('id', '=', id);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return row && toEndpoint(row, await tokenRows(db, [row.id]));
}

const columns = (input: SignalEndpointInput) => ({
  name: input.name,
  description: input.description ?? null,
  enabled: input.enabled ?? true,
});

export async function insertEndpoint(db: Db, input: SignalEndpointInput, userId: number | null, now: Date) {
  const row = await db
    .insertInto('signal_endpoints')
    .values({ ...columns(input), created_at: now, created_by_user_id: userId })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toEndpoint(row, []);
}

export async function updateEndpoint(db: Db, id: number, change: SignalEndpointInput | { enabled: boolean }) {
  await db
    .updateTable('signal_endpoints')
    .set('name' in change ? columns(change) : { enabled: change.enabled })
    .where('id', '=', id)
    .execute();
}

export async function deleteEndpoint(db: Db, id: number) {
  await db.deleteFrom('signal_endpoints').where('id', '=', id).execute();
}

export async function insertToken(
  db: Db,
  endpointId: number,
  name: string,
  hash: string,
  userId: number | null,
  now: Date,
) {
  const row = await db
    .insertInto('signal_endpoint_tokens')
    .values({
      signal_endpoint_id: endpointId,
      name,
      token_hash: hash,
      created_at: now,
      created_by_user_id: userId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toToken(row);
}

export async function renameToken(db: Db, endpointId: number, tokenId: number, name: string) {
  const row = await db
    .updateTable('signal_endpoint_tokens')
    .set({ name })
    .where('id', '=', tokenId)
    .where('signal_endpoint_id', '=', endpointId)
    .returningAll()
    .executeTakeFirst();
  return row && toToken(row);
}

export async function deleteToken(db: Db, endpointId: number, tokenId: number) {
  const row = await db
    .deleteFrom('signal_endpoint_tokens')
    .where('id', '=', tokenId)
    .where('signal_endpoint_id', '=', endpointId)
    .returningAll()
    .executeTakeFirst();
  return row && toToken(row);
}

/** The endpoint of that name and, when the hash is one of its tokens', that token. */
export function findIntake(db: Db, name: string, hash: string) {
  return db
    .selectFrom('signal_endpoints as e')
    .leftJoin('signal_endpoint_tokens as t', (j) =>
      j.onRef('t.signal_endpoint_id', '=', 'e.id').on('t.token_hash', '=', hash),
    )
    .select(['e.id', 'e.enabled', 't.id as tokenId', 't.name as tokenName'])
    .where('e.name', '=', name)
    .executeTakeFirst();
}

export interface NewSignal {
  sourceId: number;
  tokenId: number;
  tokenName: string;
  payload: unknown;
  createdAt: Date;
}

/** Stores the signals in one statement; their ids in the same order. */
export async function insertSignals(db: Db, signals: NewSignal[]): Promise<number[]> {
  const rows = await db
    .insertInto('signals')
    .values(
      signals.map((s) => ({
        source_id: s.sourceId,
        created_by_source_token_id: s.tokenId,
        token_name: s.tokenName,
        payload: JSON.stringify(s.payload),
        created_at: s.createdAt,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

const signalColumns = [
  's.id',
  's.source',
  's.source_id',
  's.created_at',
  's.token_name',
  's.payload',
] as const;

function toEndpointSignal(r: {
  id: number;
  source: 'signal-endpoint';
  source_id: number;
  created_at: Date;
  token_name: string | null;
  payload: unknown;
}) {
  return {
    id: r.id,
    source: r.source,
    sourceId: r.source_id,
    createdAt: r.created_at.toISOString(),
    tokenName: r.token_name,
    payload: r.payload,
  };
}

export async function endpointSignals(db: Db, endpointId: number, limit: number, offset: number) {
  const rows = await db
    .selectFrom('signals as s')
    .select(signalColumns)
    .where('s.source_id', '=', endpointId)
    .orderBy('s.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(toEndpointSignal);
}

export async function querySignals(db: Db, q: { from?: string; to?: string; limit: number; offset: number }) {
  let base = db.selectFrom('signals as s').innerJoin('signal_endpoints as e', 'e.id', 's.source_id');
  if (q.from) base = base.where('s.created_at', '>=', new Date(q.from));
  if (q.to) base = base.where('s.created_at', '<', new Date(q.to));
  const [rows, count] = await Promise.all([
    base
      .select([...signalColumns, 'e.name as sourceName', 'e.description as sourceDescription'])
      .orderBy('s.id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    signals: rows.map((r) => ({
      ...toEndpointSignal(r),
      sourceName: r.sourceName,
      sourceDescription: r.sourceDescription,
    })),
    total: Number(count.total),
  };
}

/**
 * Up to `limit` signals no action set has seen yet, oldest first, marked as seen (`processed_at`)
 * in the caller's transaction: the job that runs action sets processes each signal once.
 */
export async function takeUnprocessedSignals(db: Db, limit: number, now: Date): Promise<Signal[]> {
  const rows = await db
    .updateTable('signals')
    .set({ processed_at: now })
    .where(
      'id',
      'in',
      db.selectFrom('signals').select('id').where('processed_at', 'is', null).orderBy('id').limit(limit),
    )
    .returning(['id', 'source', 'source_id', 'created_at', 'created_by_source_token_id', 'payload'])
    .execute();
  return rows
    .map((r) => ({
      id: r.id,
      source: r.source,
      sourceId: r.source_id,
      createdAt: r.created_at.toISOString(),
      createdBySourceTokenId: r.created_by_source_token_id,
      payload: r.payload,
    }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Removes processed signals older than `before`, and beyond the newest `keep` of each endpoint
 * (one indexed statement per endpoint: `signals_source`).
 */
export async function pruneSignals(db: Db, before: Date, keep: number) {
  await db
    .deleteFrom('signals')
    .where('processed_at', 'is not', null)
    .where('created_at', '<', before)
    .execute();
  const endpoints = await db.selectFrom('signal_endpoints').select('id').execute();
  for (const { id } of endpoints) {
    const edge = await db
      .selectFrom('signals')
      .select('id')
      .where('source_id', '=', id)
      .orderBy('id', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (!edge) continue;
    await db
      .deleteFrom('signals')
      .where('source_id', '=', id)
      .where('id', '<=', edge.id)
      .where('processed_at', 'is not', null)
      .execute();
  }
}
