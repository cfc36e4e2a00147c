// Builds the web UI (ui/ -> dist/ui, ADR 0012) when dist/ui/index.html is missing or older than
// any file under ui/ or package-lock.json. Used by `npm start` and by the browser tests; a lock
// directory keeps two processes (the two test engines) from building into dist/ui at once.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const index = join(root, 'dist', 'ui', 'index.html');
const lock = join(root, 'dist', '.ui-build.lock');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export function uiIsStale() {
  return (
    !existsSync(index) ||
    statSync(index).mtimeMs <
      Math.max(newest(join(root, 'ui')), statSync(join(root, 'package-lock.json')).mtimeMs)
  );
}

async function acquire() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(lock);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a build that died is taken over after two minutes.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 120_000)
        rmSync(lock, { force: true });
      if (Date.now() - started > 180_000) throw new Error(`waited too long for ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Builds dist/ui if it is stale; resolves with whether it built. */
export async function buildUiIfStale({ quiet = false } = {}) {
  if (!uiIsStale()) return false;
  await acquire();
  try {
    if (!uiIsStale()) return false;
    if (!quiet) process.stdout.write('Building the web UI (ui/ -> dist/ui)…\n');
    // A production build whatever the caller's NODE_ENV (Vitest sets it to "test", which would
    // bundle React's development build).
    process.env.NODE_ENV = 'production';
    const { build } = await import('vite');
    await build({
      configFile: join(root, 'ui', 'vite.config.ts'),
      mode: 'production',
      logLevel: quiet ? 'silent' : 'warn',
    });
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildUiIfStale();
