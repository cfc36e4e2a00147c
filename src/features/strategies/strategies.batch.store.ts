import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { StrategyRow } from './strategies.store.js';

/** Rows per statement in the batch writes below: bounds one statement's JSON parameter. */
const CHUNK = 2000;

function chunks<T>(items: T[]): T[][] {
  return Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) =>
    items.slice(i * CHUNK, (i + 1) * CHUNK),
  );
}

const list = (items: unknown[]) => JSON.stringify(items);

/**
 * The strategies of the named flags in one environment, each flag's in evaluation order (sort
 * order, then creation), with their segment ids; one query whatever the number of flags.
 */
export async function listStrategiesOfFlags(
  db: Kysely<DB>,
  flags: string[],
  environment: string,
): Promise<StrategyRow[]> {
  if (flags.length === 0) return [];
  const { rows } = await sql<{
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
  }>`SELECT s.id, s.feature_name, s.strategy_name, s.title, s.disabled, s.sort_order, s.parameters,
      s.constraints, s.variants,
      (SELECT array_agg(l.segment_id ORDER BY l.segment_id) FROM feature_strategy_segment l
        WHERE l.feature_strategy_id = s.id) AS segments
    FROM feature_strategies s
    WHERE s.environment = ${environment}
      AND s.feature_name IN (SELECT jsonb_array_elements_text(${list(flags)}::jsonb))
    ORDER BY s.feature_name, s.sort_order, s.created_at, s.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    featureName: r.feature_name,
    environment,
    name: r.strategy_name,
    title: r.title,
    disabled: r.disabled,
    sortOrder: r.sort_order,
    parameters: r.parameters,
    constraints: r.constraints,
    variants: r.variants,
    segments: (r.segments ?? []).map(Number),
  }));
}

/** Which of the given strategy ids are in use (by any flag environment). */
export async function strategyIdsInUse(db: Kysely<DB>, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`SELECT id FROM feature_strategies
    WHERE id IN (SELECT jsonb_array_elements_text(${list(ids)}::jsonb))`.execute(db);
  return new Set(rows.map((r) => r.id));
}

/** Gives the named flags a row in the environment where they have none (environment added later). */
export async function ensureFlagEnvironments(db: Kysely<DB>, flags: string[], environment: string) {
  for (const part of chunks(flags)) {
    await sql`INSERT INTO feature_environments (feature_name, environment)
      SELECT jsonb_array_elements_text(${list(part)}::jsonb), ${environment}
      ON CONFLICT (feature_name, environment) DO NOTHING`.execute(db);
  }
}

const strategyJson = (s: StrategyRow, n = 0) => ({
  n,
  id: s.id,
  feature_name: s.featureName,
  environment: s.environment,
  strategy_name: s.name,
  title: s.title,
  disabled: s.disabled,
  sort_order: s.sortOrder,
  parameters: s.parameters,
  constraints: s.constraints,
  variants: s.variants,
});

const RECORD = sql`AS r(id text, feature_name text, environment text, strategy_name text, title text,
  disabled boolean, sort_order integer, parameters jsonb, constraints jsonb, variants jsonb)`;

/**
 * Inserts strategies with their segment links, a chunk per statement. Creation times follow the
 * list order (a microsecond apart), so strategies of equal sort order keep the order they came in.
 */
export async function insertStrategies(db: Kysely<DB>, strategies: StrategyRow[], userId: number) {
  let offset = 0;
  for (const part of chunks(strategies)) {
    const rows = part.map((s, i) => strategyJson(s, offset + i));
    offset += part.length;
    await sql`INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, title, disabled,
        sort_order, parameters, constraints, variants, created_by_user_id, created_at)
      SELECT r.id, r.feature_name, r.environment, r.strategy_name, r.title, r.disabled, r.sort_order,
        r.parameters, r.constraints, r.variants, ${userId}, now() + r.n * interval '1 microsecond'
      FROM jsonb_to_recordset(${list(rows)}::jsonb) AS r(id text, feature_name text, environment text,
        strategy_name text, title text, disabled boolean, sort_order integer, parameters jsonb,
        constraints jsonb, variants jsonb, n integer)`.execute(db);
    await insertLinks(db, part);
  }
}

/** Writes the strategies' own values and makes their segment links exactly theirs. */
export async function updateStrategies(db: Kysely<DB>, strategies: StrategyRow[]) {
  for (const part of chunks(strategies)) {
    await sql`UPDATE feature_strategies s SET strategy_name = r.strategy_name, title = r.title,
        disabled = r.disabled, sort_order = r.sort_order, parameters = r.parameters,
        constraints = r.constraints, variants = r.variants
      FROM jsonb_to_recordset(${list(part.map(strategyJson))}::jsonb) ${RECORD}
      WHERE s.id = r.id`.execute(db);
    await sql`DELETE FROM feature_strategy_segment
      WHERE feature_strategy_id IN (SELECT jsonb_array_elements_text(${list(part.map((s) => s.id))}::jsonb))`.execute(
      db,
    );
    await insertLinks(db, part);
  }
}

async function insertLinks(db: Kysely<DB>, strategies: StrategyRow[]) {
  const links = strategies.flatMap((s) => s.segments.map((segment) => ({ s: s.id, g: segment })));
  if (links.length === 0) return;
  await sql`INSERT INTO feature_strategy_segment (feature_strategy_id, segment_id)
    SELECT r.s, r.g FROM jsonb_to_recordset(${list(links)}::jsonb) AS r(s text, g integer)`.execute(db);
}

export async function deleteStrategies(db: Kysely<DB>, ids: string[]) {
  for (const part of chunks(ids)) {
    await sql`DELETE FROM feature_strategies
      WHERE id IN (SELECT jsonb_array_elements_text(${list(part)}::jsonb))`.execute(db);
  }
}

/** Whether each named flag is enabled in the environment (flags without a row there are absent). */
export async function enabledStates(
  db: Kysely<DB>,
  flags: string[],
  environment: string,
): Promise<Map<string, boolean>> {
  if (flags.length === 0) return new Map();
  const { rows } = await sql<{ feature_name: string; enabled: boolean }>`SELECT feature_name, enabled
    FROM feature_environments WHERE environment = ${environment}
      AND feature_name IN (SELECT jsonb_array_elements_text(${list(flags)}::jsonb))`.execute(db);
  return new Map(rows.map((r) => [r.feature_name, r.enabled]));
}

export async function setEnabledMany(db: Kysely<DB>, flags: string[], environment: string, enabled: boolean) {
  for (const part of chunks(flags)) {
    await sql`UPDATE feature_environments SET enabled = ${enabled} WHERE environment = ${environment}
      AND feature_name IN (SELECT jsonb_array_elements_text(${list(part)}::jsonb))`.execute(db);
  }
}
