import { isDeepStrictEqual } from 'node:util';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { NewEvent } from './events.store.js';

/** Events per INSERT: bounds the size of one statement's JSON parameter (and the memory it takes). */
const CHUNK = 2000;

/**
 * appendEvent for many events at once, in the caller's transaction: the same rules (an event whose
 * preData equals its data is not stored; a flag event carries the flag's tags as they are when it
 * is stored), one multi-row INSERT per chunk instead of one per event. Ids follow the list order.
 * Returns how many events were stored.
 */
export async function appendEvents(db: Kysely<DB>, events: NewEvent[]): Promise<number> {
  const kept = events.filter((e) => e.preData === undefined || !isDeepStrictEqual(e.data, e.preData));
  for (let i = 0; i < kept.length; i += CHUNK) {
    const rows = JSON.stringify(
      kept.slice(i, i + CHUNK).map((e) => ({
        t: e.type,
        b: e.createdBy,
        u: e.createdByUserId,
        f: e.featureName ?? null,
        p: e.project ?? null,
        e: e.environment ?? null,
        d: e.data ?? null,
        pd: e.preData ?? null,
      })),
    );
    await insertEventsFrom(sql`
      SELECT r.n, r.v->>'t' AS type, r.v->>'b' AS created_by, (r.v->>'u')::int AS created_by_user_id,
        r.v->>'f' AS feature_name, r.v->>'p' AS project, r.v->>'e' AS environment,
        nullif(r.v->'d', 'null'::jsonb) AS data, nullif(r.v->'pd', 'null'::jsonb) AS pre_data
      FROM jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS r(v, n)`).execute(db);
  }
  return kept.length;
}

/**
 * The events a statement derives from the rows it changes, recorded by that same statement (a
 * data-modifying WITH): `rows` is a query giving `n` (order), `type`, `created_by`,
 * `created_by_user_id`, `feature_name`, `project`, `environment`, `data` and `pre_data` (jsonb).
 * The rules of appendEvent hold: an event whose data equals its pre_data is not stored, and a flag
 * event carries the flag's tags. For writes that must hold a row lock as briefly as possible: the
 * change and its events commit without a round trip between them.
 */
export function insertEventsFrom(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`INSERT INTO events (type, created_by, created_by_user_id, feature_name, project, environment,
      data, pre_data, tags)
    SELECT r.type, r.created_by, r.created_by_user_id, r.feature_name, r.project, r.environment, r.data,
      r.pre_data,
      CASE WHEN r.feature_name IS NULL THEN '[]'::jsonb ELSE (
        SELECT coalesce(jsonb_agg(jsonb_build_object('value', t.tag_value, 'type', t.tag_type)
          ORDER BY t.tag_type, t.tag_value), '[]'::jsonb)
        FROM feature_tag t WHERE t.feature_name = r.feature_name) END
    FROM (${rows}) AS r
    WHERE r.pre_data IS NULL OR r.data IS DISTINCT FROM r.pre_data
    ORDER BY r.n`;
}
