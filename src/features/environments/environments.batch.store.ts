import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** An environment as an import defines it. */
export interface ImportedEnvironment {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
}

const json = (envs: ImportedEnvironment[]) =>
  JSON.stringify(
    envs.map((e) => ({ name: e.name, type: e.type, sort_order: e.sortOrder, enabled: e.enabled })),
  );

/** Inserts the environments whose name is free. */
export async function insertEnvironments(db: Kysely<DB>, envs: ImportedEnvironment[]): Promise<void> {
  if (envs.length === 0) return;
  await sql`INSERT INTO environments (name, type, sort_order, enabled)
    SELECT r.name, r.type, r.sort_order, r.enabled
    FROM jsonb_to_recordset(${json(envs)}::jsonb) AS r(name text, type text, sort_order int, enabled boolean)
    ON CONFLICT (name) DO NOTHING`.execute(db);
}

/** Writes type, sort order and enabled state of existing environments that are not protected. */
export async function updateEnvironments(db: Kysely<DB>, envs: ImportedEnvironment[]): Promise<void> {
  if (envs.length === 0) return;
  await sql`UPDATE environments e SET type = r.type, sort_order = r.sort_order, enabled = r.enabled
    FROM jsonb_to_recordset(${json(envs)}::jsonb) AS r(name text, type text, sort_order int, enabled boolean)
    WHERE e.name = r.name AND NOT e.protected`.execute(db);
}

/**
 * Deletes every environment that is neither protected nor named in `kept` (project environments,
 * flag environments and strategies there cascade); returns the names deleted.
 */
export async function deleteEnvironmentsExcept(db: Kysely<DB>, kept: string[]): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`DELETE FROM environments WHERE NOT protected
    AND name NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(kept)}::jsonb))
    RETURNING name`.execute(db);
  return rows.map((r) => r.name);
}
