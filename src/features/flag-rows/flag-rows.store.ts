import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface FlagRow {
  name: string;
  project: string;
  type: string;
  description: string | null;
  stale: boolean;
  impressionData: boolean;
  createdAt: Date;
  archivedAt: Date | null;
}

export const flagColumns = [
  'name',
  'project',
  'type',
  'description',
  'stale',
  'impression_data',
  'created_at',
  'archived_at',
] as const;

export function toFlagRow(row: {
  name: string;
  project: string;
  type: string;
  description: string | null;
  stale: boolean;
  impression_data: boolean;
  created_at: Date;
  archived_at: Date | null;
}): FlagRow {
  return {
    name: row.name,
    project: row.project,
    type: row.type,
    description: row.description,
    stale: row.stale,
    impressionData: row.impression_data,
    createdAt: row.created_at,
    archivedAt: row.archived_at,
  };
}

export async function findFlagArchivedState(db: Kysely<DB>, name: string) {
  return db
    .selectFrom('features')
    .select(['project', 'archived_at'])
    .where('name', '=', name)
    .executeTakeFirst();
}

/**
 * Locks the flag's row (FOR UPDATE) for the rest of the transaction and returns it.
 *
 * THE LOCK ORDER of every write to a flag: a transaction that changes a flag locks the flag's row
 * with this (or, for several flags, in name order: `ORDER BY name FOR UPDATE`) before it touches
 * any other row of the flag: its environment rows, strategies, variants, tags, lifecycle stages,
 * dependencies, favorites. A project-wide change takes the project's row first, then its flags'
 * rows in name order, then theirs; a new flag's project row comes before any flag's row.
 *
 * Why: PostgreSQL locks the flag row implicitly too. Inserting a row that references the flag
 * (a lifecycle stage, a dependency, a tag link, a flag environment) takes a KEY SHARE lock on it,
 * which waits for a FOR UPDATE. A transaction that locked a flag environment row and then inserted
 * a lifecycle stage waited for the flag row, while one that held the flag row waited for that
 * environment row: a deadlock, answered with a 500 (40P01). With the flag row always first,
 * writes to one flag simply queue on it. (transaction() in platform/db retries the rare deadlock
 * no order rules out, e.g. over shared tags rows.)
 */
export async function lockFlag(db: Kysely<DB>, name: string): Promise<FlagRow | undefined> {
  const row = await db
    .selectFrom('features')
    .select(flagColumns)
    .where('name', '=', name)
    .forUpdate()
    .executeTakeFirst();
  return row && toFlagRow(row);
}

/** Locks the rows of several flags, in name order (the lock order, see lockFlag). */
export async function lockFlagsInOrder(db: Kysely<DB>, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await db
    .selectFrom('features')
    .select('name')
    .where('name', 'in', names)
    .orderBy('name')
    .forUpdate()
    .execute();
}
