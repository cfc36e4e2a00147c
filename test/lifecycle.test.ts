import { readFileSync } from 'node:fs';
import { readdir, readFile, stat, utimes } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids } from '../bench/lib/service.js';
import {
  engineStore,
  killAll,
  pgliteStore,
  postgresStore,
  printedTokens,
  type Service,
  type Store,
  startService,
} from './process.js';

// Real processes: each start of a new PGlite database takes several seconds.
const SLOW = 90_000;
const onPostgres = process.env.TEST_ENGINE === 'postgres';

const stores: Store[] = [];
async function newStore(make: () => Promise<Store> = engineStore): Promise<Store> {
  const store = await make();
  stores.push(store);
  return store;
}
afterAll(async () => {
  await killAll();
  for (const store of stores) await store.remove();
});

const createFlag = (s: Service, token: string, name: string) =>
  s.request('/api/admin/projects/default/features', token, {
    method: 'POST',
    body: JSON.stringify({ name }),
  });
const flagStatus = async (s: Service, token: string, name: string) =>
  (await s.request(`/api/admin/projects/default/features/${name}`, token)).status;
const flagEventTypes = async (s: Service, token: string, name: string) => {
  const body = (await (await s.request(`/api/admin/events/${name}`, token)).json()) as {
    events: { type: string }[];
  };
  return body.events.map((e) => e.type);
};

describe(`service process (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it(
    'first start says what it does and prints one admin token; a restart keeps token and data',
    async () => {
      const store = await newStore();
      const first = await startService(store.env);
      const out = first.stdout();
      expect(out).toContain(
        onPostgres
          ? 'Connecting to PostgreSQL'
          : `Opening the embedded PostgreSQL (PGlite) in ${store.env.DATA_DIR}`,
      );
      expect(out).toMatch(/Applied migrations: 0001_init\.sql/);
      expect(out).toMatch(/^Listening on http:\/\/localhost:\d+\/ /m);
      const tokens = printedTokens(out);
      expect(tokens).toHaveLength(1);
      const token = tokens[0]!;
      expect((await first.request('/api/admin/events', token)).status).toBe(200);
      expect((await first.request('/api/admin/events', undefined)).status).toBe(401);
      expect((await createFlag(first, token, 'kept-across-restarts')).status).toBe(200);
      expect(await first.stop('SIGTERM')).toBe(0);

      const second = await startService(store.env);
      expect(printedTokens(second.stdout())).toEqual([]);
      expect(second.stdout()).not.toContain('Applied migrations');
      expect(second.stdout()).toContain('Listening on');
      expect((await second.request('/api/admin/events', token)).status).toBe(200);
      expect(await flagStatus(second, token, 'kept-across-restarts')).toBe(200);
      expect(await second.stop('SIGINT')).toBe(0);
    },
    SLOW,
  );

  it(
    'SIGTERM during writes exits 0 and loses no acknowledged flag',
    async () => {
      const store = await newStore();
      const first = await startService(store.env);
      const token = printedTokens(first.stdout())[0]!;
      const acknowledged: string[] = [];
      let stopped = false;
      const writer = async (w: number) => {
        for (let i = 0; !stopped; i++) {
          const name = `w${w}-${i}`;
          try {
            if ((await createFlag(first, token, name)).status === 200) acknowledged.push(name);
          } catch {
            // connection refused or reset once the server is closing: not acknowledged
          }
        }
      };
      const writers = [1, 2, 3, 4].map(writer);
      const deadline = Date.now() + 20_000;
      while (acknowledged.length < 20) {
        if (Date.now() > deadline) {
          stopped = true;
          throw new Error(`only ${acknowledged.length} of 20 flags acknowledged within 20 s of writing`);
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      const code = await first.stop('SIGTERM');
      stopped = true;
      await Promise.all(writers);
      expect(code).toBe(0);
      expect(first.stderr()).not.toMatch(/error while stopping/);

      const second = await startService(store.env);
      const missing: string[] = [];
      for (const name of acknowledged) {
        if ((await flagStatus(second, token, name)) !== 200) missing.push(name);
        else if (!(await flagEventTypes(second, token, name)).includes('feature-created')) {
          missing.push(`${name} (event)`);
        }
      }
      expect(missing).toEqual([]);
      expect(await second.stop()).toBe(0);
    },
    SLOW,
  );

  it(
    'INIT_ADMIN_API_TOKENS creates a working token and no token is generated',
    async () => {
      const store = await newStore();
      const token = '*:*.some-secret-0123456789abcdef-123456';
      const s = await startService({ ...store.env, INIT_ADMIN_API_TOKENS: token });
      expect(printedTokens(s.stdout())).toEqual([]);
      expect(s.stdout()).not.toContain('*:*.');
      expect((await s.request('/api/admin/events', token)).status).toBe(200);
      expect((await s.request('/api/admin/events', '*:*.some-secret-0123456789abcdef-654321')).status).toBe(
        401,
      );
      expect(await s.stop()).toBe(0);
    },
    SLOW,
  );

  it.skipIf(onPostgres)(
    'refuses to start on a malformed INIT_ADMIN_API_TOKENS, saying why',
    async () => {
      const store = await newStore(pgliteStore);
      await expect(startService({ ...store.env, INIT_ADMIN_API_TOKENS: 'not-a-token' })).rejects.toThrow(
        /Failed to start: INIT_ADMIN_API_TOKENS/,
      );
      // An 8-character secret (accepted before): refused, and the output never shows it.
      const failure = await startService({ ...store.env, INIT_ADMIN_API_TOKENS: '*:*.abcdefgh' }).catch(
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/Failed to start: INIT_ADMIN_API_TOKENS: the secret of token 1 of 1 has 8/);
      expect(failure).not.toContain('abcdefgh');
    },
    SLOW,
  );
});

describe.runIf(onPostgres)('two instances starting together on one empty PostgreSQL database', () => {
  it(
    'both migrate under the lock, become ready and share the data',
    async () => {
      const store = await newStore(() => postgresStore(process.env.TEST_DATABASE_URL!));
      const token = '*:*.shared-secret-0123456789abcdef01';
      const env = { ...store.env, INIT_ADMIN_API_TOKENS: token };
      const [a, b] = await Promise.all([startService(env), startService(env)]);

      const client = new pg.Client({ connectionString: store.url });
      await client.connect();
      const { rows } = await client.query('SELECT name FROM schema_migrations ORDER BY name');
      await client.end();
      const files = (await readdir('migrations')).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
      expect(rows.map((r) => r.name)).toEqual(files);
      // Exactly one of them applied the migrations.
      const applied = [a, b].filter((s) => s.stdout().includes('Applied migrations'));
      expect(applied).toHaveLength(1);

      expect((await createFlag(a, token, 'made-on-a')).status).toBe(200);
      expect(await flagStatus(b, token, 'made-on-a')).toBe(200);
      expect(await flagEventTypes(b, token, 'made-on-a')).toEqual(['feature-created']);
      expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
    },
    SLOW,
  );
});

/** The command lines of the processes whose parent is `pid`. */
const childrenOf = (pid: number) =>
  childPids(pid).map((child) => readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '));

// `npm start` runs scripts/start.mjs: the bundle, built first when missing or older than the
// sources. One engine only: both would write the same dist/main.js at once.
describe.runIf(!onPostgres)('npm start', () => {
  it(
    'builds the bundle when needed, serves from it and stops cleanly',
    async () => {
      const store = await newStore(pgliteStore);
      // The start script's own command line (`node <flags> scripts/start.mjs`), flags included.
      const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
      const args = (pkg.scripts.start as string).split(/\s+/).slice(1);
      expect(args.at(-1)).toBe('scripts/start.mjs');
      // A build setting newer than the bundle makes it stale: this start builds.
      const now = new Date();
      await utimes(new URL('../scripts/bundle.mjs', import.meta.url), now, now);
      const service = await startService(store.env, SLOW, args);
      expect((await service.request('/health', undefined)).status).toBe(200);
      const built = await readdir(new URL('../dist/', import.meta.url));
      expect(built).toContain('main.js');
      const bundled = await stat(new URL('../dist/main.js', import.meta.url));
      expect(bundled.mtimeMs).toBeGreaterThanOrEqual(now.getTime() - 1000);
      // The builders ran as processes of their own and ended: nothing of them stays with the
      // service (esbuild's API would leave its binary running as a child, some 270 MB).
      expect(childrenOf(service.pid)).toEqual([]);
      expect(await service.stop('SIGTERM')).toBe(0);
    },
    SLOW,
  );
});
