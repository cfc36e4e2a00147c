// Production build: bundled ES modules (dist/main.js and its chunks in dist/chunks). Loading a few
// files instead of thousands of modules is most of the start-up time; see bench/RESULTS.md.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// The chunks' names carry their hash: the last build's would pile up (dist/ui is the UI's, kept).
rmSync(new URL('../dist/chunks', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: ['src/main.ts'],
  // Split at the dynamic imports of src/main.ts: an edge replica loads only its own part.
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  // V8 keeps the bundle's source text in memory for as long as the process runs (functions are
  // compiled from it when first called). Without whitespace and comments it is half the size, and
  // all ASCII: a single non-ASCII character in a kept comment made V8 store the whole 5 MB text
  // as two bytes per character (9.8 MB of the heap). Names and syntax stay as written, so stack
  // traces still name the functions; the source map gives the lines. Licence comments of the
  // bundled packages go to dist/main.js.LEGAL.txt.
  minifyWhitespace: true,
  legalComments: 'external',
  // Packages that load files relative to themselves (WebAssembly, static assets) or optional
  // native bindings stay in node_modules.
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native'],
  // CommonJS dependencies inside an ES module bundle need a `require`.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
