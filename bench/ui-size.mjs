// The web UI's initial download (ADR 0012): the JavaScript and CSS that dist/ui/index.html loads
// before any route, gzip -9, against the budget of 250 KB of JavaScript. Lazy route chunks
// are listed apart. Run after `npm run build:ui`; exits 1 over budget.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'dist', 'ui');
const html = readFileSync(join(dir, 'index.html'), 'utf8');
const initial = new Set([...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]));
const gz = (file) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

const sum = (ext) => [...initial].filter((f) => f.endsWith(ext)).reduce((total, f) => total + gz(f), 0);
const js = sum('.js');
const css = sum('.css');
const lazy = readdirSync(join(dir, 'assets'))
  .map((f) => `assets/${f}`)
  .filter((f) => f.endsWith('.js') && !initial.has(f));
const lazyTotal = lazy.reduce((total, f) => total + gz(f), 0);
const BUDGET = 250 * 1024;
console.log(`web UI initial JS ${kb(js)} gzip (budget ${kb(BUDGET)}), CSS ${kb(css)} gzip`);
console.log(`lazy chunks: ${lazy.length}, ${kb(lazyTotal)} gzip in all`);
if (js > BUDGET) process.exit(1);
