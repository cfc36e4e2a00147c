import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * Sets `stale` on the listed active flags of the project whose value differs; returns the changed
 * names. The flags' rows are locked first, in name order (the lock order, see lockFlag): one UPDATE
 * of several rows would lock them in whatever order its plan visits them.
 */
export async function setStale(
  db: Kysely<DB>,
  project: string,
  names: string[],
  stale: boolean,
): Promise<string[]> {
  if (names.length === 0) return [];
  await db
    .selectFrom('features')
    .select('name')
    .where('project', '=', project)
    .where('name', 'in', names)
    .orderBy('name')
    .forUpdate()
    .execute();
  const rows = await db
    .updateTable('features')
    .set({ stale })
    .where('project', '=', project)
    .where('name', 'in', names)
    .where('archived_at', 'is', null)
    .where('stale', '<>', stale)
    .returning('name')
    .execute();
  return rows.map((r) => r.name).sort();
}
