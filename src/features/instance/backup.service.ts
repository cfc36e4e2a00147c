import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import { notFound } from '../../platform/http/errors.js';
import { checkpoint } from './backup.store.js';

export const POSTGRES_BACKUP_HINT =
  'This instance runs on PostgreSQL (DATABASE_URL): back it up with pg_dump and restore with pg_restore (README, "Backups").';

/**
 * A consistent copy of the embedded database (PGlite), as a gzipped tarball of its data directory.
 * PGlite has one session: while this transaction holds it, no other transaction is open or can
 * start, so the files copied are those of the last committed transaction. A checkpoint first
 * writes every change to the data files. Writes wait meanwhile (about a second per 10 MB).
 */
export async function backupEmbedded(deps: Deps): Promise<Buffer> {
  const dump = deps.database.dump;
  if (deps.database.engine !== 'pglite' || !dump) throw notFound(POSTGRES_BACKUP_HINT);
  const blob = await transaction(deps.database.db, async (tx) => {
    await checkpoint(tx);
    return dump();
  });
  return Buffer.from(await blob.arrayBuffer());
}
