import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

/**
 * The `migrations/` folder of the package: found upwards from this module, so the same code works
 * from `src/` (tsx), `dist/` (compiled) and a single bundled file.
 */
function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, '0001_init.sql'))) return `${candidate}/`;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('migrations/ folder not found');
    dir = parent;
  }
}
const MIGRATIONS_DIR = migrationsDir();
// Any constant works; it only has to be the same for every instance sharing the database.
const MIGRATION_LOCK_KEY = 4242_0001;

/**
 * Applies the pending `migrations/NNNN_name.sql` files in order, each in its own transaction.
 * An advisory lock held for the whole run lets several instances start at once on one database:
 * the first migrates, the others wait and then find nothing left to do.
 */
export async function migrate(database: Database): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return database.session(async (run) => {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await run(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set((await run('SELECT name FROM schema_migrations')).map((r) => String(r.name)));
      const applied: string[] = [];
      for (const file of files.filter((f) => !done.has(f))) {
        const script = await readFile(MIGRATIONS_DIR + file, 'utf8');
        await run('BEGIN');
        try {
          await run(script);
          await run('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
          await run('COMMIT');
        } catch (error) {
          await run('ROLLBACK');
          throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(file);
      }
      return applied;
    } finally {
      await run('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}
