import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** How many (name, application, environment) rows of unknown flag names are kept at most. */
export const UNKNOWN_FLAGS_KEPT = 1000;

/** The names among `names` that a flag has (archived flags included). */
export async function existingFlagNames(db: Kysely<DB>, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await sql<{ name: string }>`SELECT name FROM features
    WHERE name IN (SELECT jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))`.execute(db);
  return new Set(rows.map((r) => r.name));
}
