// `npm run restore -- <file>`: turns a backup made by `npm run backup` into a PGlite data directory.
// Only into an empty or new folder: an existing database is never overwritten. With --force, the
// existing folder is moved aside (renamed, never deleted) and the backup restored in its place.
// Stop the service first; start it again on the restored folder. PostgreSQL: pg_restore (README).
import { mkdir, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run restore -- <file> [options]

  <file>              a backup made by npm run backup (.tar.gz)
  --data-dir <dir>    the data directory to create (default: DATA_DIR, else ./data); it must be
                      empty or not exist
  --force             if it holds data, move it aside to <dir>.before-restore-<time> (nothing is
                      deleted) and restore in its place; stop the service first

PostgreSQL (DATABASE_URL): use pg_restore, see README "Backups".`;

function fail(message) {
  process.stderr.write(`restore: ${message}\n`);
  process.exit(1);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  fail(`${error.message}\n\n${USAGE}`);
}
const { values: options, positionals } = parsed;
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (positionals.length !== 1) fail(`name one backup file.\n\n${USAGE}`);
const file = resolve(positionals[0]);
const target = resolve(options['data-dir'] ?? process.env.DATA_DIR ?? './data');

const started = performance.now();
let backup;
try {
  backup = await readFile(file);
} catch (error) {
  fail(`cannot read ${file}: ${error.message}`);
}

const entries = await readdir(target).catch(() => null);
const occupied = entries !== null && entries.length > 0;
if (occupied && !options.force) {
  fail(
    `${target} is not empty; restoring never overwrites data. Restore into a new folder (--data-dir) and point DATA_DIR at it, or add --force to move ${target} aside first (stop the service before).`,
  );
}

// The backup is unpacked and opened in a scratch folder beside the target, then renamed into
// place: an interrupted restore leaves no half-made data directory where the service looks.
const scratch = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
await rm(scratch, { recursive: true, force: true });
await mkdir(dirname(target), { recursive: true });
let summary;
try {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const pglite = await PGlite.create({
    dataDir: scratch,
    loadDataDir: new Blob([backup]),
    extensions: { pg_trgm },
  });
  try {
    const count = async (query) => Number((await pglite.query(query)).rows[0]?.n ?? 0);
    summary = {
      migrations: await count('SELECT count(*)::int AS n FROM schema_migrations'),
      flags: await count('SELECT count(*)::int AS n FROM features'),
      events: await count('SELECT count(*)::int AS n FROM events'),
    };
    await pglite.exec('CHECKPOINT');
  } finally {
    await pglite.close();
  }
} catch (error) {
  await rm(scratch, { recursive: true, force: true });
  fail(`${file} could not be restored (${error.message}); ${target} was not touched.`);
}

let movedAside;
if (occupied) {
  movedAside = `${target}.before-restore-${new Date().toISOString().replaceAll(':', '-').slice(0, 19)}`;
  await rename(target, movedAside);
} else if (entries) {
  await rmdir(target); // an empty folder (rmdir refuses any other), replaced by the restored one
}
await rename(scratch, target);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const size = (await stat(file)).size;
process.stdout.write(
  `Restored ${file} (${(size / 1_048_576).toFixed(1)} MiB) into ${target} in ${seconds} s: ${summary.flags} flags, ${summary.events} events, ${summary.migrations} migrations applied.\n`,
);
if (movedAside) process.stdout.write(`The folder that was there is now ${movedAside} (nothing deleted).\n`);
process.stdout.write(`Start the service with DATA_DIR=${target}.\n`);
