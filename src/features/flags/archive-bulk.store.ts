import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

const list = (names: string[]) => sql`(SELECT jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))`;

/** The named flags that exist, with their project and whether they are archived. */
export async function flagsByName(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<{ name: string; project: string; archived: boolean }>`
    SELECT name, project, archived_at IS NOT NULL AS archived FROM features
    WHERE name IN ${list(names)} ORDER BY name`.execute(db);
  return rows;
}

/** Listed flags that are parents of a flag not listed: archiving them would orphan it. */
export async function orphanedParents(db: Kysely<DB>, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<{ parent: string }>`
    SELECT DISTINCT parent FROM feature_dependencies
    WHERE parent IN ${list(names)} AND child NOT IN ${list(names)} ORDER BY parent`.execute(db);
  return rows.map((r) => r.parent);
}

/** Whether any listed flag is a parent or a child in a dependency. */
export async function haveDependencies(db: Kysely<DB>, names: string[]): Promise<boolean> {
  if (names.length === 0) return false;
  const { rows } = await sql<{ found: boolean }>`
    SELECT EXISTS (SELECT 1 FROM feature_dependencies
      WHERE parent IN ${list(names)} OR child IN ${list(names)}) AS found`.execute(db);
  return rows[0]?.found === true;
}
