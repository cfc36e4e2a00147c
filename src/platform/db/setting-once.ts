import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * A value made once and kept in the `settings` row `name` as `{[field]: value}`: the first caller
 * stores `fresh`, every caller (on any instance) reads what was stored first.
 */
export async function settingMadeOnce(
  db: Kysely<DB>,
  name: string,
  field: string,
  fresh: string,
): Promise<string | undefined> {
  await sql`INSERT INTO settings (name, content) VALUES (${name}, jsonb_build_object(${field}::text, ${fresh}::text))
    ON CONFLICT DO NOTHING`.execute(db);
  const result = await sql<{ value: string | null }>`SELECT content->>${field}::text AS value FROM settings
    WHERE name = ${name}`.execute(db);
  return result.rows[0]?.value ?? undefined;
}
