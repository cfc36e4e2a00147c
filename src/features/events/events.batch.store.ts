import { isDeepStrictEqual } from 'node:util';
import { type Kysely, sql } from 'kysely';
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
    await sql`INSERT INTO events (type, created_by, created_by_user_id, feature_name, project, environment,
        data, pre_data, tags)
      SELECT r.v->>'t', r.v->>'b', (r.v->>'u')::int, r.v->>'f', r.v->>'p', r.v->>'e',
        nullif(r.v->'d', 'null'::jsonb), nullif(r.v->'pd', 'null'::jsonb),
        CASE WHEN r.v->>'f' IS NULL THEN '[]'::jsonb ELSE (
          SELECT coalesce(jsonb_agg(jsonb_build_object('value', t.tag_value, 'type', t.tag_type)
            ORDER BY t.tag_type, t.tag_value), '[]'::jsonb)
          FROM feature_tag t WHERE t.feature_name = r.v->>'f') END
      FROM jsonb_array_elements(${rows}::jsonb) WITH ORDINALITY AS r(v, n)
      ORDER BY r.n`.execute(db);
  }
  return kept.length;
}
