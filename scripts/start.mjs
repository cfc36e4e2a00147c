// `npm start`: runs the bundled service (dist/main.js), building it first when it is missing or
// older than any source file, package-lock.json or scripts/bundle.mjs, and the web UI (dist/ui) likewise (scripts/ui-build.mjs). The bundle starts faster and uses less memory than
// compiling TypeScript at load time (bench/RESULTS.md); `npm run dev` keeps the tsx way.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist', 'main.js');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const stale =
  !existsSync(bundle) ||
  statSync(bundle).mtimeMs <
    Math.max(
      newest(join(root, 'src')),
      statSync(join(root, 'package-lock.json')).mtimeMs,
      // The build's own settings (a new bundle option reaches existing checkouts too).
      statSync(join(root, 'scripts', 'bundle.mjs')).mtimeMs,
    );
// npm runs scripts from the package folder; the same when this file is started from elsewhere
// (the default DATA_DIR, ./data, is relative to it).
process.chdir(root);
// Each build runs as a process of its own, which ends with it: built in this process, the
// builders' memory (esbuild's child, Vite's) stayed with the service for its whole life (a first
// start held some 500 MB more than a restart).
const run = (script) => {
  const done = spawnSync(process.execPath, [join(root, 'scripts', script)], { stdio: 'inherit' });
  if (done.status !== 0) process.exit(done.status ?? 1);
};
if (stale) run('bundle.mjs');
const { uiIsStale } = await import('./ui-build.mjs');
if (uiIsStale()) run('ui-build.mjs');
await import(bundle);
