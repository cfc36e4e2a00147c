import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

const list = (items: unknown[]) => JSON.stringify(items);

/** Which flags an export takes (see ExportQueryBody): already resolved to one kind. */
export type Selection =
  | { kind: 'tag'; tag: string }
  | { kind: 'names'; names: string[] }
  | { kind: 'project'; project: string }
  | { kind: 'all' };

function selectionFilter(selection: Selection): RawBuilder<unknown> {
  switch (selection.kind) {
    case 'tag':
      return sql`f.name IN (SELECT t.feature_name FROM feature_tag t
        WHERE t.tag_value = ${selection.tag} OR t.tag_type || ':' || t.tag_value = ${selection.tag})`;
    case 'names':
      return sql`f.name IN (SELECT jsonb_array_elements_text(${list(selection.names)}::jsonb))`;
    case 'project':
      return sql`f.project = ${selection.project} AND f.archived_at IS NULL`;
    case 'all':
      return sql`f.archived_at IS NULL`;
  }
}

export interface ExportFlagRow {
  name: string;
  description: string | null;
  type: string;
  project: string;
  stale: boolean;
  impression_data: boolean;
  archived: boolean;
}

export async function environmentExists(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('name').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}

export async function projectExists(db: Kysely<DB>, id: string): Promise<boolean> {
  const row = await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** The selected flags, by name. */
export async function selectFlags(db: Kysely<DB>, selection: Selection): Promise<ExportFlagRow[]> {
  const { rows } = await sql<ExportFlagRow>`SELECT f.name, f.description, f.type, f.project, f.stale,
      f.impression_data, f.archived_at IS NOT NULL AS archived
    FROM features f WHERE ${selectionFilter(selection)} ORDER BY f.name COLLATE "C"`.execute(db);
  return rows;
}

export interface ExportStrategyRow {
  id: string;
  feature_name: string;
  strategy_name: string;
  title: string | null;
  disabled: boolean;
  sort_order: number;
  parameters: Record<string, string>;
  constraints: unknown[];
  variants: unknown[];
  segments: number[] | null;
}

/**
 * Strategies, on/off and variants, tags, parents and links of the selected flags: one query each, each
 * selecting the flags again by the same filter (a semi-join, whatever the number of flags).
 */
export async function flagConfiguration(db: Kysely<DB>, selection: Selection, environment: string) {
  const selected = sql`(SELECT f.name FROM features f WHERE ${selectionFilter(selection)})`;
  const strategies =
    await sql<ExportStrategyRow>`SELECT s.id, s.feature_name, s.strategy_name, s.title, s.disabled, s.sort_order,
        s.parameters, s.constraints, s.variants, g.ids AS segments
      FROM feature_strategies s
      LEFT JOIN LATERAL (SELECT array_agg(l.segment_id ORDER BY l.segment_id) AS ids
        FROM feature_strategy_segment l WHERE l.feature_strategy_id = s.id) g ON true
      WHERE s.environment = ${environment}
        AND s.feature_name IN ${selected}
      ORDER BY s.feature_name COLLATE "C", s.sort_order, s.created_at, s.id`.execute(db);
  const environments = await sql<{
    feature_name: string;
    enabled: boolean;
    variants: unknown[];
  }>`SELECT fe.feature_name, fe.enabled,
        fe.variants
      FROM feature_environments fe
      JOIN features f ON f.name = fe.feature_name
      JOIN project_environments pe ON pe.project_id = f.project AND pe.environment_name = fe.environment
      WHERE fe.environment = ${environment}
        AND fe.feature_name IN ${selected}
      ORDER BY fe.feature_name COLLATE "C"`.execute(db);
  const tags = await sql<{
    feature_name: string;
    tag_type: string;
    tag_value: string;
  }>`SELECT feature_name, tag_type, tag_value
      FROM feature_tag WHERE feature_name IN ${selected}
      ORDER BY feature_name COLLATE "C", tag_type COLLATE "C", tag_value COLLATE "C"`.execute(db);
  const dependencies = await sql<{
    child: string;
    parent: string;
    enabled: boolean;
    variants: string[] | null;
  }>`SELECT child, parent,
        enabled, variants
      FROM feature_dependencies WHERE child IN ${selected}
      ORDER BY child COLLATE "C", parent COLLATE "C"`.execute(db);
  const links = await sql<{
    feature_name: string;
    url: string;
    title: string | null;
  }>`SELECT feature_name, url, title
      FROM feature_links WHERE feature_name IN ${selected}
      ORDER BY feature_name COLLATE "C", created_at, id`.execute(db);
  return {
    strategies: strategies.rows,
    environments: environments.rows,
    tags: tags.rows,
    dependencies: dependencies.rows,
    links: links.rows,
  };
}

export async function segmentsById(db: Kysely<DB>, ids: number[]) {
  if (ids.length === 0) return [];
  const { rows } = await sql<{
    id: number;
    name: string;
    description: string | null;
    project: string | null;
    constraints: unknown[];
  }>`SELECT id, name, description, segment_project_id AS project, constraints FROM segments
    WHERE id IN (SELECT (jsonb_array_elements_text(${list(ids)}::jsonb))::int) ORDER BY id`.execute(db);
  return rows;
}

export async function contextFieldsByName(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<{
    name: string;
    description: string | null;
    stickiness: boolean;
    sort_order: number;
    legal_values: { value: string; description?: string }[];
    project: string | null;
  }>`SELECT name, description, stickiness, sort_order, legal_values, project FROM context_fields
    WHERE name IN (SELECT jsonb_array_elements_text(${list(names)}::jsonb)) ORDER BY name COLLATE "C"`.execute(
    db,
  );
  return rows;
}

export async function tagTypesByName(db: Kysely<DB>, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<{
    name: string;
    description: string | null;
    icon: string | null;
    color: string | null;
  }>`SELECT name, description, icon, color FROM tag_types
    WHERE name IN (SELECT jsonb_array_elements_text(${list(names)}::jsonb)) ORDER BY name COLLATE "C"`.execute(
    db,
  );
  return rows;
}
