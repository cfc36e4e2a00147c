// Production build: one bundled ES module (dist/main.js). Loading one file instead of thousands of
// modules is most of the start-up time; see bench/RESULTS.md.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  // Packages that load files relative to themselves (WebAssembly, static assets) or optional
  // native bindings stay in node_modules.
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native'],
  // CommonJS dependencies inside an ES module bundle need a `require`.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
