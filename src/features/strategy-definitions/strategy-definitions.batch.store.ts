import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { type StrategyRow, toRow } from './strategy-definitions.store.js';

/** The named strategy types that exist, their rows locked in name order. */
export async function lockStrategyTypes(db: Kysely<DB>, names: string[]): Promise<StrategyRow[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<
    Parameters<typeof toRow>[0]
  >`SELECT name, title, description, parameters, built_in, deprecated
    FROM strategies WHERE name IN (SELECT jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))
    ORDER BY name FOR UPDATE`.execute(db);
  return rows.map(toRow);
}

const json = (types: StrategyRow[]) =>
  JSON.stringify(
    types.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      parameters: t.parameters,
      deprecated: t.deprecated,
    })),
  );

/** Inserts custom strategy types whose name is free. */
export async function insertStrategyTypes(db: Kysely<DB>, types: StrategyRow[]): Promise<void> {
  if (types.length === 0) return;
  await sql`INSERT INTO strategies (name, title, description, parameters, deprecated)
    SELECT r.name, r.title, r.description, r.parameters, r.deprecated
    FROM jsonb_to_recordset(${json(types)}::jsonb)
      AS r(name text, title text, description text, parameters jsonb, deprecated boolean)
    ON CONFLICT (name) DO NOTHING`.execute(db);
}

/** Writes title, description, parameters and deprecation of existing custom strategy types. */
export async function updateStrategyTypes(db: Kysely<DB>, types: StrategyRow[]): Promise<void> {
  if (types.length === 0) return;
  await sql`UPDATE strategies s SET title = r.title, description = r.description,
      parameters = r.parameters, deprecated = r.deprecated
    FROM jsonb_to_recordset(${json(types)}::jsonb)
      AS r(name text, title text, description text, parameters jsonb, deprecated boolean)
    WHERE s.name = r.name AND NOT s.built_in`.execute(db);
}

/** Deletes the custom strategy types no flag strategy uses; returns their names. */
export async function deleteUnusedCustomStrategyTypes(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`DELETE FROM strategies s WHERE NOT s.built_in
    AND NOT EXISTS (SELECT 1 FROM feature_strategies fs WHERE fs.strategy_name = s.name)
    RETURNING s.name`.execute(db);
  return rows.map((r) => r.name);
}
