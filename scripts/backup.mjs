// `npm run backup -- <file>`: a consistent copy of the embedded database (PGlite) as a gzipped
// tarball of its data directory, which `npm run restore` turns into a data directory again.
//
// While the service runs (it holds the data directory: PGlite is single-process), the copy is made
// by the service itself: GET /api/admin/instance-admin/backup with an admin token. With the
// service stopped, `--offline` reads DATA_DIR: it copies the folder, opens the copy and dumps it,
// so the data directory itself is never opened or written. PostgreSQL: use pg_dump (README "Backups").
import { cp, mkdtemp, open, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';

const USAGE = `Usage: npm run backup -- <file> [options]

  <file>              where to write the backup (a .tar.gz); an existing file is kept unless --force

While the service runs (the usual case):
  --url <address>     the service (default: FLAGSHIP_URL, else http://localhost:$PORT$BASE_URI_PATH, PORT 4242)
  --token <token>     an admin API token (default: FLAGSHIP_TOKEN)

With the service stopped:
  --offline           copy DATA_DIR instead of asking the service (no service may run on it)
  --data-dir <dir>    the data directory (default: DATA_DIR, else ./data)
  --ignore-lock       back up although postmaster.pid is there (the service was killed or cannot start)

  --force             replace <file> if it exists

PostgreSQL (DATABASE_URL): use pg_dump, see README "Backups".`;

function fail(message) {
  process.stderr.write(`backup: ${message}\n`);
  process.exit(1);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      offline: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'ignore-lock': { type: 'boolean', default: false },
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
if (positionals.length !== 1) fail(`name one file to write.\n\n${USAGE}`);
const file = resolve(positionals[0]);
if (!options.force && (await exists(file))) fail(`${file} exists; choose another name or add --force.`);

const started = performance.now();
const bytes = options.offline ? await offline() : await online();
check(bytes);
// Written beside the target, then renamed: a failed backup never leaves a truncated file behind.
const partial = `${file}.partial-${process.pid}`;
const handle = await open(partial, 'w');
try {
  await handle.writeFile(bytes);
  await handle.sync();
} finally {
  await handle.close();
}
await rename(partial, file);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `Backup written to ${file} (${(bytes.length / 1_048_576).toFixed(1)} MiB, ${seconds} s).\n`,
);

async function online() {
  const port = process.env.PORT || '4242';
  const base = (
    options.url ??
    process.env.FLAGSHIP_URL ??
    `http://localhost:${port}${process.env.BASE_URI_PATH ?? ''}`
  ).replace(/\/+$/, '');
  const token = options.token ?? process.env.FLAGSHIP_TOKEN;
  if (!token) fail('an admin API token is needed: --token <token> or FLAGSHIP_TOKEN.');
  let res;
  try {
    res = await fetch(`${base}/api/admin/instance-admin/backup`, { headers: { authorization: token } });
  } catch (error) {
    fail(
      `no service answers at ${base} (${error.cause?.code ?? error.message}). Start it, give its address with --url, or, with the service stopped, use --offline.`,
    );
  }
  if (!res.ok) {
    const body = await res.text();
    let message = body;
    try {
      message = JSON.parse(body).message ?? body;
    } catch {}
    fail(`the service answered ${res.status}: ${message}`);
  }
  return Buffer.from(await res.arrayBuffer());
}

async function offline() {
  const dataDir = resolve(options['data-dir'] ?? process.env.DATA_DIR ?? './data');
  if (!(await exists(join(dataDir, 'PG_VERSION')))) fail(`${dataDir} is not a PGlite data directory.`);
  // PGlite writes postmaster.pid while open and removes it on a clean stop (its pid is not a real one).
  if (!options['ignore-lock'] && (await exists(join(dataDir, 'postmaster.pid')))) {
    fail(
      `${dataDir}/postmaster.pid exists: a service is running on this folder, or the last one did not stop cleanly. If one runs, back up through it (without --offline): a copy made while it writes may be inconsistent. If none runs (it was killed, or cannot start), add --ignore-lock.`,
    );
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const scratch = await mkdtemp(join(tmpdir(), 'flagship-backup-'));
  try {
    // Opening a database may write to it (recovery after a crash): that happens to the copy only.
    const copy = join(scratch, 'pgdata');
    await cp(dataDir, copy, { recursive: true });
    const pglite = await PGlite.create({ dataDir: copy, extensions: { pg_trgm } });
    try {
      await pglite.exec('CHECKPOINT');
      return Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
    } finally {
      await pglite.close();
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A backup is a gzipped tar holding PG_VERSION: anything else (an HTML page, a cut body) fails here. */
function check(data) {
  let tar;
  try {
    tar = gunzipSync(data);
  } catch (error) {
    fail(`what came back is not a gzipped backup (${error.message}); nothing was written.`);
  }
  if (!tar.includes('PG_VERSION')) fail('what came back holds no PG_VERSION; nothing was written.');
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}
