import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';

/** Writes every dirty page to the data files, so a copy taken next needs no WAL replay to open. */
export async function checkpoint(tx: Db): Promise<void> {
  await sql`CHECKPOINT`.execute(tx);
}
