import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** Where a package entry point is, as a URL a child's dynamic import takes. */
function resolveUrl(specifier: string): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve(specifier);
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;
}

/**
 * Creates a new PGlite data directory (initdb) in a short-lived child process.
 *
 * Why a child: PGlite's initdb needs 128 MB of WebAssembly memory and peaks at several hundred MB
 * of resident memory, which a process does not give back. Done apart, the service then opens the
 * finished directory with the small initial memory it is configured for (`PGLITE_INITIAL_MEMORY_MB`)
 * and its resident memory stays what the database needs, on the first start as on every other.
 */
export function initialiseDataDir(dataDir: string): Promise<void> {
  const code = [
    `const { PGlite } = await import(${JSON.stringify(resolveUrl('@electric-sql/pglite'))});`,
    `const { pg_trgm } = await import(${JSON.stringify(resolveUrl('@electric-sql/pglite/contrib/pg_trgm'))});`,
    'const db = await PGlite.create({ dataDir: process.argv[1], extensions: { pg_trgm } });',
    'await db.close();',
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', code, dataDir],
      { maxBuffer: 4 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const detail = stderr.trim().split('\n').slice(-5).join('\n') || error.message;
        reject(new Error(`creating the database failed: ${detail}`));
      },
    );
  });
}
