import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export type Stage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';

/** Every stage the flag entered, oldest first (ties in the order of the stages). */
export async function listStages(db: Kysely<DB>, name: string) {
  return db
    .selectFrom('feature_lifecycles')
    .select(['stage', 'status', 'status_value', 'created_at'])
    .where('feature_name', '=', name)
    .orderBy('created_at')
    .orderBy(sql`array_position(array['initial','pre-live','live','completed','archived'], stage)`)
    .execute();
}

/** Enters the stage (again): a stage entered before gets its new time and status. */
export async function upsertStage(
  db: Kysely<DB>,
  name: string,
  stage: Stage,
  at: Date,
  status: string | null = null,
  statusValue: string | null = null,
) {
  await db
    .insertInto('feature_lifecycles')
    .values({ feature_name: name, stage, created_at: at, status, status_value: statusValue })
    .onConflict((oc) =>
      oc
        .columns(['feature_name', 'stage'])
        .doUpdateSet({ created_at: at, status, status_value: statusValue }),
    )
    .execute();
}

/** Removes the stage; returns whether the flag had it. */
export async function deleteStage(db: Kysely<DB>, name: string, stage: Stage): Promise<boolean> {
  const row = await db
    .deleteFrom('feature_lifecycles')
    .where('feature_name', '=', name)
    .where('stage', '=', stage)
    .returning('stage')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Enters lifecycle stages on enabling, as one INSERT for the flags `flags` selects (a query with a
 * `name` column): `pre-live` for any environment, also `live` for a production-type one
 * (`production`, an SQL boolean). A stage is entered only once and never while the flag is at a
 * later stage. One statement for both stages: within it neither sees the other's row, which is
 * what the rule needs (`pre-live` does not wait for `live`, and `live` does not look at `pre-live`).
 */
export function enterLiveStagesFrom(flags: RawBuilder<unknown>, production: RawBuilder<boolean>, at: Date) {
  return sql`INSERT INTO feature_lifecycles (feature_name, stage, created_at)
    SELECT f.name, st.stage, ${at}::timestamptz
    FROM (${flags}) AS f
    CROSS JOIN (VALUES ('pre-live', ARRAY['live', 'completed', 'archived']),
      ('live', ARRAY['completed', 'archived'])) AS st(stage, later)
    WHERE (st.stage = 'pre-live' OR ${production})
      AND NOT EXISTS (SELECT 1 FROM feature_lifecycles l
        WHERE l.feature_name = f.name AND l.stage = ANY(st.later))
    ON CONFLICT (feature_name, stage) DO NOTHING`;
}

/** enterLiveStagesFrom for one flag. */
export async function enterLiveStages(db: Kysely<DB>, flag: string, production: boolean, at: Date) {
  await enterLiveStagesFrom(sql`SELECT ${flag}::text AS name`, sql`${production}::boolean`, at).execute(db);
}

/** enterLiveStagesFrom (lifecycle.store.ts) for many flags. */
export async function enterLiveStagesMany(
  db: Kysely<DB>,
  names: string[],
  production: boolean,
  at: Date,
): Promise<void> {
  if (names.length === 0) return;
  await enterLiveStagesFrom(
    sql`SELECT jsonb_array_elements_text(${JSON.stringify(names)}::jsonb) AS name`,
    sql`${production}::boolean`,
    at,
  ).execute(db);
}
