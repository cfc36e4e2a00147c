import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface FlagForDependency {
  name: string;
  project: string;
  archivedAt: Date | null;
}

/**
 * Locks the named flags in name order (so two requests touching the same pair never deadlock)
 * and returns those that exist. Holding both locks serialises every change to their dependencies,
 * which keeps the one-level rule true under concurrency.
 */
export async function lockFlags(
  db: Kysely<DB>,
  names: string[],
  lock = true,
): Promise<Map<string, FlagForDependency>> {
  const query = db
    .selectFrom('features')
    .select(['name', 'project', 'archived_at'])
    .where('name', 'in', names)
    .orderBy('name');
  const rows = await (lock ? query.forUpdate() : query).execute();
  return new Map(rows.map((r) => [r.name, { name: r.name, project: r.project, archivedAt: r.archived_at }]));
}

/** Whether the flag is the child of some flag, and whether it is the parent of some flag. */
export async function dependencyRoles(db: Kysely<DB>, name: string) {
  const row = await sql<{ has_parents: boolean; has_children: boolean }>`SELECT
    EXISTS (SELECT 1 FROM feature_dependencies WHERE child = ${name}) AS has_parents,
    EXISTS (SELECT 1 FROM feature_dependencies WHERE parent = ${name}) AS has_children`.execute(db);
  return { hasParents: row.rows[0]!.has_parents, hasChildren: row.rows[0]!.has_children };
}

/** Adds the dependency or replaces its options; returns the previous options, if any. */
export async function upsertDependency(
  db: Kysely<DB>,
  child: string,
  parent: string,
  enabled: boolean,
  variants: string[] | null,
) {
  const before = await db
    .selectFrom('feature_dependencies')
    .select(['enabled', 'variants'])
    .where('child', '=', child)
    .where('parent', '=', parent)
    .executeTakeFirst();
  await db
    .insertInto('feature_dependencies')
    .values({ child, parent, enabled, variants: variants === null ? null : JSON.stringify(variants) })
    .onConflict((oc) =>
      oc.columns(['parent', 'child']).doUpdateSet({
        enabled,
        variants: variants === null ? null : JSON.stringify(variants),
      }),
    )
    .execute();
  return before;
}

/** Removes one dependency, or all of the child's when `parent` is undefined; returns the parents removed. */
export async function deleteDependencies(db: Kysely<DB>, child: string, parent?: string): Promise<string[]> {
  let query = db.deleteFrom('feature_dependencies').where('child', '=', child);
  if (parent !== undefined) query = query.where('parent', '=', parent);
  const rows = await query.returning('parent').execute();
  return rows.map((r) => r.parent).sort();
}

/**
 * Flags that may become parents of `child`: active flags of its project other than itself that
 * have no parents themselves. None when `child` is itself a parent (one level only).
 */
export async function possibleParents(db: Kysely<DB>, child: string, project: string): Promise<string[]> {
  const rows = await db
    .selectFrom('features as f')
    .select('f.name')
    .where('f.project', '=', project)
    .where('f.archived_at', 'is', null)
    .where('f.name', '<>', child)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(selectFrom('feature_dependencies as d').select('d.child').whereRef('d.child', '=', 'f.name')),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('feature_dependencies as c').select('c.parent').where('c.parent', '=', child))),
    )
    .orderBy('f.name')
    .execute();
  return rows.map((r) => r.name);
}

/** Whether any flag of the project depends on another. */
export async function projectHasDependencies(db: Kysely<DB>, project: string): Promise<boolean> {
  const row = await db
    .selectFrom('feature_dependencies as d')
    .innerJoin('features as f', 'f.name', 'd.child')
    .select('d.child')
    .where('f.project', '=', project)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The parents of a flag, by name. */
export async function listParents(db: Kysely<DB>, child: string): Promise<string[]> {
  const rows = await db
    .selectFrom('feature_dependencies')
    .select('parent')
    .where('child', '=', child)
    .orderBy('parent')
    .execute();
  return rows.map((r) => r.parent);
}

/** Gives the new flag `to` the parents of `from`; returns the dependencies added, by parent. */
export async function copyParents(db: Kysely<DB>, from: string, to: string) {
  const rows = await sql<{ parent: string; enabled: boolean; variants: string[] | null }>`
    INSERT INTO feature_dependencies (parent, child, enabled, variants)
    SELECT parent, ${to}, enabled, variants FROM feature_dependencies WHERE child = ${from}
    ON CONFLICT DO NOTHING RETURNING parent, enabled, variants`.execute(db);
  return rows.rows.sort((a, b) => a.parent.localeCompare(b.parent));
}

/** Every variant name of a flag: its strategies' variants and its environments' variants. */
export async function variantNamesOf(db: Kysely<DB>, flag: string): Promise<string[]> {
  const result = await sql<{ name: string }>`
    SELECT DISTINCT v->>'name' AS name FROM (
      SELECT jsonb_array_elements(s.variants) AS v FROM feature_strategies s WHERE s.feature_name = ${flag}
      UNION ALL
      SELECT jsonb_array_elements(fe.variants) FROM feature_environments fe WHERE fe.feature_name = ${flag}) x
    WHERE v->>'name' IS NOT NULL
    ORDER BY 1`.execute(db);
  return result.rows.map((r) => r.name);
}
