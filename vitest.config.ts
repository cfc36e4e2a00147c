import { availableParallelism } from 'node:os';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// One suite, two engines: PGlite always; PostgreSQL as well when TEST_DATABASE_URL is set.
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

export default defineConfig({
  test: {
    // One worker more than there are cores (Vitest's default is one fewer): the test files spend
    // much of their time waiting on PostgreSQL, Chromium and timers. On two cores the whole suite
    // took 820 s with three workers where one took over 1,900 s (session 8, ADR 0004 addendum).
    maxWorkers: availableParallelism() + 1,
    projects: [
      ...engines.map((engine) => ({
        test: {
          name: engine,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // The browser tests exercise the web UI, which is the same on either engine: they run
          // once, with PGlite, which keeps .ci/run within its time on a slow machine.
          ...(engine === 'postgres' ? { exclude: ['test/ui/**', 'node_modules/**'] } : {}),
          env: { TEST_ENGINE: engine },
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks' as const,
          // Test files share their worker's module graph instead of importing the whole service
          // again each (238 files, ~7 s of import each on two cores): the suite on both engines
          // took 1,030 s isolated and 572 s shared (session 15). Files keep no state beyond their
          // own apps and databases, which they close and drop in afterAll.
          isolate: false,
        },
      })),
      // The web UI's component tests: no database, so they run once, not once per engine.
      {
        plugins: [react()],
        test: {
          name: 'ui',
          include: ['ui/**/*.test.tsx'],
          environment: 'happy-dom',
          setupFiles: ['ui/src/test-setup.ts'],
          testTimeout: 15_000,
        },
      },
    ],
  },
});
