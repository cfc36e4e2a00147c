import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** A project as an import defines it. */
export interface ImportedProject {
  id: string;
  name: string;
  description: string | null;
}

const json = (items: unknown[]) => JSON.stringify(items);

/** The named projects that exist (archived or not), their rows locked in id order. */
export async function lockProjects(db: Kysely<DB>, ids: string[]): Promise<ImportedProject[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ImportedProject>`SELECT id, name, description FROM projects
    WHERE id IN (SELECT jsonb_array_elements_text(${json(ids)}::jsonb)) ORDER BY id FOR UPDATE`.execute(db);
  return rows;
}

/** Inserts the projects whose id is free. */
export async function insertProjects(db: Kysely<DB>, projects: ImportedProject[], now: Date): Promise<void> {
  if (projects.length === 0) return;
  await sql`INSERT INTO projects (id, name, description, created_at)
    SELECT r.id, r.name, r.description, ${now} FROM jsonb_to_recordset(${json(projects)}::jsonb)
      AS r(id text, name text, description text)
    ON CONFLICT (id) DO NOTHING`.execute(db);
}

/** Writes name and description of existing projects. */
export async function updateProjects(db: Kysely<DB>, projects: ImportedProject[], now: Date): Promise<void> {
  if (projects.length === 0) return;
  await sql`UPDATE projects p SET name = r.name, description = r.description, updated_at = ${now}
    FROM jsonb_to_recordset(${json(projects)}::jsonb) AS r(id text, name text, description text)
    WHERE p.id = r.id`.execute(db);
}

/**
 * Enables environments in projects: each pair whose environment exists (others are left for the
 * caller's checks to report). Returns the pairs added, in project and environment order.
 */
export async function attachProjectEnvironments(
  db: Kysely<DB>,
  pairs: { project: string; environment: string }[],
): Promise<{ project: string; environment: string }[]> {
  if (pairs.length === 0) return [];
  const { rows } = await sql<{ project: string; environment: string }>`
    INSERT INTO project_environments (project_id, environment_name)
    SELECT r.project, e.name FROM jsonb_to_recordset(${json(pairs)}::jsonb) AS r(project text, environment text)
    JOIN environments e ON e.name = r.environment
    ORDER BY r.project, e.sort_order, e.name
    ON CONFLICT DO NOTHING
    RETURNING project_id AS project, environment_name AS environment`.execute(db);
  return rows;
}

/** The enabled environments, in environment order: what a project created without a list gets. */
export async function enabledEnvironmentNames(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM environments WHERE enabled
    ORDER BY sort_order, name`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Deletes every project other than `default` that holds no flag (archived or not); what hangs off
 * a project (its environments, access, tokens, segments, context fields) cascades. Returns the ids.
 */
export async function deleteProjectsWithoutFlags(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`DELETE FROM projects p WHERE p.id <> 'default'
    AND NOT EXISTS (SELECT 1 FROM features f WHERE f.project = p.id) RETURNING p.id`.execute(db);
  return rows.map((r) => r.id);
}
