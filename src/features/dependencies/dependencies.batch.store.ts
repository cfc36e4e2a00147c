import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface DependencyRow {
  child: string;
  parent: string;
  enabled: boolean;
  variants: string[] | null;
}

/** The parents of the named flags. */
export async function parentsOfFlags(db: Kysely<DB>, children: string[]): Promise<DependencyRow[]> {
  if (children.length === 0) return [];
  const { rows } = await sql<DependencyRow>`SELECT child, parent, enabled, variants FROM feature_dependencies
    WHERE child IN (SELECT jsonb_array_elements_text(${JSON.stringify(children)}::jsonb))
    ORDER BY child, parent`.execute(db);
  return rows;
}

/** Adds the dependencies, or sets the options of those that exist. */
export async function upsertDependencies(db: Kysely<DB>, rows: DependencyRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`INSERT INTO feature_dependencies (parent, child, enabled, variants)
    SELECT r.parent, r.child, r.enabled, r.variants
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS r(parent text, child text, enabled boolean, variants jsonb)
    ON CONFLICT (parent, child) DO UPDATE SET enabled = EXCLUDED.enabled, variants = EXCLUDED.variants`.execute(
    db,
  );
}

export async function deleteDependencyRows(db: Kysely<DB>, rows: { child: string; parent: string }[]) {
  if (rows.length === 0) return;
  await sql`DELETE FROM feature_dependencies d USING jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS r(parent text, child text)
    WHERE d.parent = r.parent AND d.child = r.child`.execute(db);
}
