import { type Kysely, sql } from 'kysely';
import { likeLiteral } from '../../platform/db/index.js';
import type { DB } from '../../platform/db/schema.js';
import { countAllEvents, type EventRecord, toEventRecord } from './events.store.js';

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
  const text = s.query;
  if (text) {
    const pattern = `%${likeLiteral(text)}%`;
    // The data is searched as its JSON text, where a `"`, a `\` or a control character in a
    // value is escaped: the query is also looked for escaped so, or a name such as `Ops "beta"`
    // would never be found. JSON.stringify escapes exactly as PostgreSQL's jsonb output does.
    const inJson = `%${likeLiteral(JSON.stringify(text).slice(1, -1))}%`;
    // The three texts joined by newlines, as the trigram index events_text_trgm (migration 0027)
    // holds them. A text without a newline matches the joined text exactly when it matches one of
    // the three; a text with one is also checked against each on its own.
    const joined = sql`(coalesce(data::text, '') || chr(10) || created_by || chr(10) || coalesce(feature_name, ''))`;
    q = q.where((eb) => {
      const plain = text.includes('\n')
        ? eb.and([
            eb(joined, 'ilike', pattern),
            eb.or([
              eb(sql`data::text`, 'ilike', pattern),
              eb('created_by', 'ilike', pattern),
              eb('feature_name', 'ilike', pattern),
            ]),
          ])
        : eb(joined, 'ilike', pattern);
      return inJson === pattern ? plain : eb.or([plain, eb(joined, 'ilike', inJson)]);
    });
  }
  const page = (query: typeof q) =>
    query.selectAll().orderBy('id', 'desc').offset(s.offset).limit(s.limit).execute();
  const unfiltered = lists.every(([, list]) => list === undefined) && !s.from && !s.toExclusive && !s.query;
  if (unfiltered) {
    // The total is the event counter (kept by a trigger), not a scan of the log.
    const [rows, total] = await Promise.all([page(q), countAllEvents(db)]);
    return { total, events: rows.map(toEventRecord) };
  }
  // The total first, with the lowest and highest matching id (the filter indexes end in id): the
  // page then reads only that id range, newest first. The bounds change nothing in the result,
  // but keep the planner from walking the whole log backwards for a filter it misjudges (a day
  // range, a rare text).
  const found = await q
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('id').as('low'), eb.fn.max('id').as('high')])
    .executeTakeFirstOrThrow();
  const total = Number(found.n);
  if (total === 0 || s.offset >= total) return { total, events: [] };
  const rows = await page(q.where('id', '>=', Number(found.low)).where('id', '<=', Number(found.high)));
  return { total, events: rows.map(toEventRecord) };
}
