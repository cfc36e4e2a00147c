import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web UI (ADR 0012): built into dist/ui, which the service serves. A relative base lets the
// service run under a base path: it adds a <base href> to index.html when it serves it.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 600,
  },
  // `npm run dev:ui`: hot reload on :5173, the API from a service running on :4242 (`npm run dev`).
  server: {
    proxy: Object.fromEntries(['/api', '/auth', '/logout'].map((path) => [path, 'http://127.0.0.1:4242'])),
  },
  logLevel: 'warn',
});
