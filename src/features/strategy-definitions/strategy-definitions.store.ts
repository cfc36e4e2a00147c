import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface StrategyRow {
  name: string;
  title: string | null;
  description: string | null;
  parameters: { name: string; type: string; description: string; required: boolean }[];
  builtIn: boolean;
  deprecated: boolean;
}

const columns = ['name', 'title', 'description', 'parameters', 'built_in', 'deprecated'] as const;
export const toRow = (r: {
  name: string;
  title: string | null;
  description: string | null;
  parameters: StrategyRow['parameters'];
  built_in: boolean;
  deprecated: boolean;
}): StrategyRow => ({
  name: r.name,
  title: r.title,
  description: r.description,
  parameters: r.parameters,
  builtIn: r.built_in,
  deprecated: r.deprecated,
});

export async function listStrategies(db: Kysely<DB>): Promise<StrategyRow[]> {
  return (
    await db.selectFrom('strategies').select(columns).orderBy('sort_order').orderBy('name').execute()
  ).map(toRow);
}

export async function findStrategy(
  db: Kysely<DB>,
  name: string,
  lock = false,
): Promise<StrategyRow | undefined> {
  const q = db.selectFrom('strategies').select(columns).where('name', '=', name);
  const row = await (lock ? q.forUpdate() : q).executeTakeFirst();
  return row && toRow(row);
}

/** Inserts a custom strategy; undefined when the name is taken. */
export async function insertStrategy(db: Kysely<DB>, s: StrategyRow): Promise<StrategyRow | undefined> {
  const row = await db
    .insertInto('strategies')
    .values({
      name: s.name,
      title: s.title,
      description: s.description,
      parameters: JSON.stringify(s.parameters),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning(columns)
    .executeTakeFirst();
  return row && toRow(row);
}

export async function updateStrategy(db: Kysely<DB>, s: StrategyRow): Promise<void> {
  await db
    .updateTable('strategies')
    .set({
      title: s.title,
      description: s.description,
      parameters: JSON.stringify(s.parameters),
      deprecated: s.deprecated,
    })
    .where('name', '=', s.name)
    .execute();
}

export async function strategyInUse(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('feature_strategies')
    .select('id')
    .where('strategy_name', '=', name)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the strategy; a concurrent first use fails on the foreign key (23503). */
export async function deleteStrategy(db: Kysely<DB>, name: string): Promise<void> {
  await db.deleteFrom('strategies').where('name', '=', name).execute();
}
