import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

const list = (items: unknown[]) => JSON.stringify(items);
const inList = (items: unknown[]) => sql`(SELECT jsonb_array_elements_text(${list(items)}::jsonb))`;

export interface TargetProject {
  id: string;
  featureLimit: number | null;
  namingPattern: string | null;
  namingExample: string | null;
  namingDescription: string | null;
  defaultStickiness: string;
  activeFlags: number;
}

export async function findTargetProject(db: Kysely<DB>, id: string): Promise<TargetProject | undefined> {
  const { rows } = await sql<{
    id: string;
    feature_limit: number | null;
    feature_naming_pattern: string | null;
    feature_naming_example: string | null;
    feature_naming_description: string | null;
    default_stickiness: string;
    active: number;
  }>`SELECT p.id, p.feature_limit, p.feature_naming_pattern, p.feature_naming_example,
      p.feature_naming_description, p.default_stickiness,
      (SELECT count(*)::int FROM features f WHERE f.project = p.id AND f.archived_at IS NULL) AS active
    FROM projects p WHERE p.id = ${id} AND p.archived_at IS NULL`.execute(db);
  const row = rows[0];
  return (
    row && {
      id: row.id,
      featureLimit: row.feature_limit,
      namingPattern: row.feature_naming_pattern,
      namingExample: row.feature_naming_example,
      namingDescription: row.feature_naming_description,
      defaultStickiness: row.default_stickiness,
      activeFlags: Number(row.active),
    }
  );
}

/** The environment's type, when the project has the environment. */
export async function projectEnvironmentType(
  db: Kysely<DB>,
  project: string,
  environment: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('project_environments as pe')
    .innerJoin('environments as e', 'e.name', 'pe.environment_name')
    .select('e.type')
    .where('pe.project_id', '=', project)
    .where('pe.environment_name', '=', environment)
    .executeTakeFirst();
  return row?.type;
}

export interface ExistingFlag {
  name: string;
  project: string;
  archived: boolean;
}

export async function existingFlags(db: Kysely<DB>, names: string[]): Promise<Map<string, ExistingFlag>> {
  if (names.length === 0) return new Map();
  const { rows } = await sql<ExistingFlag>`SELECT name, project, archived_at IS NOT NULL AS archived
    FROM features WHERE name IN ${inList(names)}`.execute(db);
  return new Map(rows.map((r) => [r.name, r]));
}

/** Strategy types by name: whether each is built in. */
export async function strategyTypes(db: Kysely<DB>, names: string[]): Promise<Map<string, boolean>> {
  if (names.length === 0) return new Map();
  const { rows } = await sql<{ name: string; built_in: boolean }>`SELECT name, built_in FROM strategies
    WHERE name IN ${inList(names)}`.execute(db);
  return new Map(rows.map((r) => [r.name, r.built_in]));
}

export async function contextFields(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return new Map<string, { legalValues: string[]; project: string | null }>();
  const { rows } = await sql<{
    name: string;
    legal_values: { value: string }[];
    project: string | null;
  }>`SELECT name, legal_values, project FROM context_fields WHERE name IN ${inList(names)}`.execute(db);
  return new Map(
    rows.map((r) => [r.name, { legalValues: r.legal_values.map((v) => v.value), project: r.project }]),
  );
}

/** A segment of the target, as an import matches it by name. */
export interface TargetSegment {
  id: number;
  project: string | null;
  constraints: unknown[];
}

export async function segmentsByName(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return new Map<string, TargetSegment>();
  const { rows } = await sql<{
    id: number;
    name: string;
    segment_project_id: string | null;
    constraints: unknown[];
  }>`SELECT id, name, segment_project_id, constraints FROM segments WHERE name IN ${inList(names)}`.execute(
    db,
  );
  return new Map(
    rows.map((r) => [r.name, { id: r.id, project: r.segment_project_id, constraints: r.constraints }]),
  );
}

export async function tagTypeNames(db: Kysely<DB>, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await sql<{
    name: string;
  }>`SELECT name FROM tag_types WHERE name IN ${inList(names)}`.execute(db);
  return new Set(rows.map((r) => r.name));
}

/** Of the named flags, those with at least one strategy in the environment. */
export async function flagsWithStrategies(db: Kysely<DB>, names: string[], environment: string) {
  if (names.length === 0) return new Set<string>();
  const { rows } = await sql<{ feature_name: string }>`SELECT DISTINCT feature_name FROM feature_strategies
    WHERE environment = ${environment} AND feature_name IN ${inList(names)}`.execute(db);
  return new Set(rows.map((r) => r.feature_name));
}

/** Every dependency with one of the named flags at either end. */
export async function dependenciesTouching(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<{ parent: string; child: string }>`SELECT parent, child FROM feature_dependencies
    WHERE parent IN ${inList(names)} OR child IN ${inList(names)}`.execute(db);
  return rows;
}
