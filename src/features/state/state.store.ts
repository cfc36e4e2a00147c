import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

const list = (items: unknown[]) => JSON.stringify(items);
const inList = (items: string[]) => sql`(SELECT jsonb_array_elements_text(${list(items)}::jsonb))`;

/** Everything the state export holds, one query per kind, each in a fixed order. */
export async function readState(db: Kysely<DB>) {
  const environments = await sql<{ name: string; type: string; sort_order: number; enabled: boolean }>`
    SELECT name, type, sort_order, enabled FROM environments ORDER BY sort_order, name COLLATE "C"`.execute(
    db,
  );
  const projects = await sql<{ id: string; name: string; description: string | null }>`
    SELECT id, name, description FROM projects WHERE archived_at IS NULL ORDER BY id COLLATE "C"`.execute(db);
  const features = await sql<{
    name: string;
    project: string;
    type: string;
    description: string | null;
    stale: boolean;
    impression_data: boolean;
  }>`SELECT name, project, type, description, stale, impression_data FROM features
    WHERE archived_at IS NULL ORDER BY name COLLATE "C"`.execute(db);
  const strategies = await sql<{
    name: string;
    title: string | null;
    description: string | null;
    built_in: boolean;
    deprecated: boolean;
    parameters: { name: string; type: string; description: string; required: boolean }[];
  }>`SELECT name, title, description, built_in, deprecated, parameters FROM strategies
    ORDER BY name COLLATE "C"`.execute(db);
  const featureStrategies = await sql<{
    id: string;
    feature_name: string;
    project: string;
    environment: string;
    strategy_name: string;
    title: string | null;
    disabled: boolean;
    sort_order: number;
    parameters: Record<string, string>;
    constraints: unknown[];
    variants: unknown[];
  }>`SELECT s.id, s.feature_name, f.project, s.environment, s.strategy_name, s.title, s.disabled,
      s.sort_order, s.parameters, s.constraints, s.variants
    FROM feature_strategies s
    JOIN features f ON f.name = s.feature_name AND f.archived_at IS NULL
    JOIN project_environments pe ON pe.project_id = f.project AND pe.environment_name = s.environment
    ORDER BY s.feature_name COLLATE "C", s.environment COLLATE "C", s.sort_order, s.created_at, s.id`.execute(
    db,
  );
  const featureEnvironments = await sql<{
    feature_name: string;
    environment: string;
    enabled: boolean;
    variants: unknown[];
  }>`SELECT fe.feature_name, fe.environment, fe.enabled, fe.variants
    FROM feature_environments fe
    JOIN features f ON f.name = fe.feature_name AND f.archived_at IS NULL
    JOIN project_environments pe ON pe.project_id = f.project AND pe.environment_name = fe.environment
    ORDER BY fe.feature_name COLLATE "C", fe.environment COLLATE "C"`.execute(db);
  const tagTypes = await sql<{
    name: string;
    description: string | null;
    icon: string | null;
    color: string | null;
  }>`
    SELECT name, description, icon, color FROM tag_types ORDER BY name COLLATE "C"`.execute(db);
  const tags = await sql<{ type: string; value: string }>`
    SELECT type, value FROM tags ORDER BY type COLLATE "C", value COLLATE "C"`.execute(db);
  const featureTags = await sql<{ feature_name: string; tag_type: string; tag_value: string }>`
    SELECT t.feature_name, t.tag_type, t.tag_value FROM feature_tag t
    JOIN features f ON f.name = t.feature_name AND f.archived_at IS NULL
    ORDER BY t.feature_name COLLATE "C", t.tag_type COLLATE "C", t.tag_value COLLATE "C"`.execute(db);
  const segments = await sql<{
    id: number;
    name: string;
    description: string | null;
    project: string | null;
    constraints: unknown[];
  }>`SELECT id, name, description, segment_project_id AS project, constraints FROM segments
    ORDER BY id`.execute(db);
  const featureStrategySegments = await sql<{ feature_strategy_id: string; segment_id: number }>`
    SELECT l.feature_strategy_id, l.segment_id FROM feature_strategy_segment l
    JOIN feature_strategies s ON s.id = l.feature_strategy_id
    JOIN features f ON f.name = s.feature_name AND f.archived_at IS NULL
    JOIN project_environments pe ON pe.project_id = f.project AND pe.environment_name = s.environment
    ORDER BY l.feature_strategy_id COLLATE "C", l.segment_id`.execute(db);
  return {
    environments: environments.rows,
    projects: projects.rows,
    features: features.rows,
    strategies: strategies.rows,
    featureStrategies: featureStrategies.rows,
    featureEnvironments: featureEnvironments.rows,
    tagTypes: tagTypes.rows,
    tags: tags.rows,
    featureTags: featureTags.rows,
    segments: segments.rows,
    featureStrategySegments: featureStrategySegments.rows,
  };
}

/** What the import's rules need about the names a document uses: one query per kind. */
export async function readImportFacts(
  db: Kysely<DB>,
  names: {
    projects: string[];
    environments: string[];
    strategyTypes: string[];
    flags: string[];
    tagTypes: string[];
    flagTypes: string[];
    segmentIds: number[];
  },
) {
  const projects = await sql<{ id: string }>`SELECT id FROM projects
    WHERE archived_at IS NULL AND id IN ${inList(names.projects)}`.execute(db);
  const environments = await sql<{ name: string; type: string }>`SELECT name, type FROM environments
    WHERE name IN ${inList(names.environments)}`.execute(db);
  const projectEnvironments = await sql<{ project_id: string; environment_name: string }>`
    SELECT project_id, environment_name FROM project_environments
    WHERE project_id IN ${inList(names.projects)}`.execute(db);
  const strategyTypes = await sql<{ name: string }>`SELECT name FROM strategies
    WHERE name IN ${inList(names.strategyTypes)}`.execute(db);
  const flags = await sql<{ name: string; project: string; archived: boolean }>`
    SELECT name, project, archived_at IS NOT NULL AS archived FROM features
    WHERE name IN ${inList(names.flags)}`.execute(db);
  const tagTypes = await sql<{ name: string }>`SELECT name FROM tag_types
    WHERE name IN ${inList(names.tagTypes)}`.execute(db);
  const flagTypes = await sql<{ id: string }>`SELECT id FROM feature_types
    WHERE id IN ${inList(names.flagTypes)}`.execute(db);
  const segmentIds = await sql<{ id: number }>`SELECT id FROM segments
    WHERE id IN (SELECT (jsonb_array_elements_text(${list(names.segmentIds)}::jsonb))::int)`.execute(db);
  return {
    segmentIds: new Set(segmentIds.rows.map((r) => r.id)),
    projects: new Set(projects.rows.map((r) => r.id)),
    environments: new Map(environments.rows.map((r) => [r.name, r.type])),
    projectEnvironments: projectEnvironments.rows.map((r) => ({
      project: r.project_id,
      environment: r.environment_name,
    })),
    strategyTypes: new Set(strategyTypes.rows.map((r) => r.name)),
    flags: new Map(flags.rows.map((r) => [r.name, r])),
    tagTypes: new Set(tagTypes.rows.map((r) => r.name)),
    flagTypes: new Set(flagTypes.rows.map((r) => r.id)),
  };
}
export type StateFacts = Awaited<ReturnType<typeof readImportFacts>>;
