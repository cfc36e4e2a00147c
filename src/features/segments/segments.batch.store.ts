import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** A segment as an import defines it; `id` is the one to keep when it is free. */
export interface ImportedSegment {
  id?: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: unknown[];
}
export type StoredSegment = ImportedSegment & { id: number };

const json = (items: unknown[]) => JSON.stringify(items);

/** The named segments that exist, their rows locked in id order. */
export async function lockSegmentsByName(db: Kysely<DB>, names: string[]): Promise<StoredSegment[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<StoredSegment>`SELECT id, name, description, segment_project_id AS project,
      constraints FROM segments WHERE name IN (SELECT jsonb_array_elements_text(${json(names)}::jsonb))
    ORDER BY id FOR UPDATE`.execute(db);
  return rows;
}

/** Which of the ids belong to a segment. */
export async function segmentIdsTaken(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: number }>`SELECT id FROM segments
    WHERE id IN (SELECT (jsonb_array_elements_text(${json(ids)}::jsonb))::int)`.execute(db);
  return new Set(rows.map((r) => r.id));
}

/**
 * Inserts the segments, with their `id` when one is given (the caller checked it is free), else a
 * new one; moves the id sequence past the ids given. Returns the ids by name.
 */
export async function insertSegments(
  db: Kysely<DB>,
  segments: ImportedSegment[],
  createdBy: string,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const rows = (list: ImportedSegment[]) =>
    json(
      list.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        project: s.project,
        constraints: s.constraints,
      })),
    );
  const withId = segments.filter((s) => s.id !== undefined);
  const withoutId = segments.filter((s) => s.id === undefined);
  if (withId.length > 0) {
    const inserted = await sql<{ id: number; name: string }>`INSERT INTO segments
        (id, name, description, segment_project_id, constraints, created_by)
      SELECT r.id, r.name, r.description, r.project, r.constraints, ${createdBy}
      FROM jsonb_to_recordset(${rows(withId)}::jsonb)
        AS r(id int, name text, description text, project text, constraints jsonb)
      RETURNING id, name`.execute(db);
    for (const r of inserted.rows) ids.set(r.name, r.id);
    await sql`SELECT setval(pg_get_serial_sequence('segments', 'id'), GREATEST(
        (SELECT max(id) FROM segments),
        coalesce(pg_sequence_last_value(pg_get_serial_sequence('segments', 'id')::regclass), 1)))`.execute(
      db,
    );
  }
  if (withoutId.length > 0) {
    const inserted = await sql<{ id: number; name: string }>`INSERT INTO segments
        (name, description, segment_project_id, constraints, created_by)
      SELECT e.v->>'name', e.v->>'description', e.v->>'project', e.v->'constraints', ${createdBy}
      FROM jsonb_array_elements(${rows(withoutId)}::jsonb) WITH ORDINALITY AS e(v, n)
      ORDER BY e.n
      RETURNING id, name`.execute(db);
    for (const r of inserted.rows) ids.set(r.name, r.id);
  }
  return ids;
}

/** Writes description, project and constraints of existing segments (by id). */
export async function updateSegments(db: Kysely<DB>, segments: StoredSegment[]): Promise<void> {
  if (segments.length === 0) return;
  await sql`UPDATE segments g SET description = r.description, segment_project_id = r.project,
      constraints = r.constraints
    FROM jsonb_to_recordset(${json(segments)}::jsonb)
      AS r(id int, description text, project text, constraints jsonb)
    WHERE g.id = r.id`.execute(db);
}

/** Deletes the segments no strategy uses; returns them. */
export async function deleteUnusedSegments(db: Kysely<DB>): Promise<StoredSegment[]> {
  const { rows } = await sql<StoredSegment>`DELETE FROM segments g
    WHERE NOT EXISTS (SELECT 1 FROM feature_strategy_segment l WHERE l.segment_id = g.id)
    RETURNING id, name, description, segment_project_id AS project, constraints`.execute(db);
  return rows.sort((a, b) => a.id - b.id);
}
