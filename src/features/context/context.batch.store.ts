import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { ContextValues } from './context.store.js';

/** Inserts the context fields whose name is free; returns the names inserted. */
export async function insertContextFields(db: Kysely<DB>, fields: ContextValues[]): Promise<Set<string>> {
  if (fields.length === 0) return new Set();
  const rows = JSON.stringify(
    fields.map((f) => ({
      name: f.name,
      description: f.description,
      stickiness: f.stickiness,
      sort_order: f.sortOrder,
      legal_values: f.legalValues,
      project: f.project,
    })),
  );
  const { rows: inserted } = await sql<{ name: string }>`INSERT INTO context_fields
      (name, description, stickiness, sort_order, legal_values, project)
    SELECT r.name, r.description, r.stickiness, r.sort_order, r.legal_values, r.project
    FROM jsonb_to_recordset(${rows}::jsonb) AS r(name text, description text, stickiness boolean,
      sort_order integer, legal_values jsonb, project text)
    ON CONFLICT (name) DO NOTHING RETURNING name`.execute(db);
  return new Set(inserted.map((r) => r.name));
}
