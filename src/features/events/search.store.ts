import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { type EventRecord, toEventRecord } from './events.store.js';

export interface EventSearch {
  query?: string;
  ids?: number[];
  features?: string[];
  projects?: string[];
  types?: string[];
  createdBy?: number[];
  environments?: string[];
  /** Inclusive UTC day bounds. */
  from?: Date;
  toExclusive?: Date;
  offset: number;
  limit: number;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Events matching every filter given, newest first, one page, and how many match in all. Each
 * filter is an indexed column; `query` is a case-insensitive substring of the event's data,
 * creator and flag name, wildcards taken literally.
 */
export async function searchEvents(
  db: Kysely<DB>,
  s: EventSearch,
): Promise<{ events: EventRecord[]; total: number }> {
  let q = db.selectFrom('events');
  // A list filter with no usable value (`id=IS:abc`, `groupId`) matches nothing; `IN ()` is no SQL.
  const lists = [
    ['id', s.ids],
    ['feature_name', s.features],
    ['project', s.projects],
    ['type', s.types],
    ['created_by_user_id', s.createdBy],
    ['environment', s.environments],
  ] as const;
  for (const [column, list] of lists) {
    if (list === undefined) continue;
    q = list.length === 0 ? q.where(sql<boolean>`false`) : q.where(column, 'in', list as never[]);
  }
  if (s.from) q = q.where('created_at', '>=', s.from);
  if (s.toExclusive) q = q.where('created_at', '<', s.toExclusive);
  if (s.query) {
    const pattern = `%${escapeLike(s.query)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(sql`data::text`, 'ilike', pattern),
        eb('created_by', 'ilike', pattern),
        eb('feature_name', 'ilike', pattern),
      ]),
    );
  }
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('id', 'desc').offset(s.offset).limit(s.limit).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    events: rows.map(toEventRecord),
  };
}
