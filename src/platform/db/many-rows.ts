import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * For the rest of the caller's transaction, the planner does not pick a nested loop where another
 * join exists: for reads of thousands of rows (large exports), whose joins want hash or merge
 * joins, linear in the rows read. Without statistics (PGlite has no autovacuum, so its tables are
 * never analysed; PostgreSQL's until autovacuum runs after a bulk import) the planner takes such a
 * join for a few rows and nests loops over thousands: a 6,000-flag state export spent 17.7 s in
 * one join on PGlite (on a loaded machine), 0.45 s with this, most of it reading the rows. A
 * lateral subquery, which only a nested loop runs, still runs as one. Not for reads of a few rows
 * in a large table: a hash join reads the whole table.
 * Needs a transaction (`SET LOCAL`; outside one it would change nothing).
 */
export async function planForManyRows(tx: Kysely<DB>): Promise<void> {
  await sql`SET LOCAL enable_nestloop = off`.execute(tx);
}
