import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { withDatabase } from './global-setup.js';
import { killAll, pgliteStore, postgresStore, type Service, type Store, startService } from './process.js';

/**
 * Backups (issue 17). PGlite: `npm run backup` copies the running service's embedded database
 * while writes go on, `npm run restore` makes a new data directory of it, and a service started
 * there has everything acknowledged before the backup began, each change with its event, and no
 * half of anything; `--offline` does the same with the service stopped. PostgreSQL: the backup
 * route points at pg_dump, and the documented pg_dump / pg_restore round trip is checked.
 */
const onPostgres = process.env.TEST_ENGINE === 'postgres';
const TOKEN = '*:*.backup-test-secret-0123456789abcdef';
const ENV = 'development';
const FLAGS = '/api/admin/projects/default/features';
const SLOW = 180_000;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await killAll();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'flagship-backup-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
async function store(make: () => Promise<Store>): Promise<Store> {
  const s = await make();
  cleanups.push(() => s.remove());
  return s;
}

/** Runs a command to its end: exit code, output and how long it took. */
function run(command: string, args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  return new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) =>
      resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) }),
    );
  });
}
const node = (script: string, ...args: string[]) => run(process.execPath, [script, ...args]);

async function ok(service: Service, path: string, init?: RequestInit) {
  const res = await service.request(path, TOKEN, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** A flag with one strategy: two acknowledged writes. */
async function flagWithStrategy(service: Service, name: string) {
  await ok(service, FLAGS, { method: 'POST', body: JSON.stringify({ name, description: `about ${name}` }) });
  await ok(service, `${FLAGS}/${name}/environments/${ENV}/strategies`, {
    method: 'POST',
    body: JSON.stringify({ name: 'default', title: `strategy of ${name}` }),
  });
}

interface Exported {
  features: { name: string }[];
  featureStrategies: { id: string; featureName: string }[];
  featureEnvironments: { featureName: string }[];
}
const exportAll = async (service: Service) =>
  (await ok(service, '/api/admin/features-batch/export', {
    method: 'POST',
    body: JSON.stringify({ environment: ENV, features: [] }),
  })) as unknown as Exported;

/** Each flag's export entries together, by name: what the comparison looks at. */
function byFlag(doc: Exported) {
  return new Map(
    doc.features.map((feature) => [
      feature.name,
      {
        feature,
        strategies: doc.featureStrategies.filter((s) => s.featureName === feature.name),
        environment: doc.featureEnvironments.find((e) => e.featureName === feature.name),
      },
    ]),
  );
}

/** Writers creating flags (each with a strategy) until stopped; what they were told, in order. */
function startWriters(service: Service, prefix: string, count = 3) {
  // `sentAt`: when the flag's first request left; one sent after a backup ended cannot be in it.
  const acked: { name: string; sentAt: number }[] = [];
  const sent = new Set<string>();
  const state = { stop: false };
  const writers = Array.from({ length: count }, async (_, w) => {
    for (let i = 0; !state.stop; i++) {
      const name = `${prefix}-${w}-${i}`;
      sent.add(name);
      const sentAt = performance.now();
      await flagWithStrategy(service, name);
      acked.push({ name, sentAt });
    }
  });
  return {
    acked,
    sent,
    stop: async () => {
      state.stop = true;
      await Promise.all(writers);
    },
  };
}

async function waitFor(condition: () => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The restored service against what was acknowledged: every flag of `before` exactly as it was,
 * nothing acknowledged after the backup ended, nothing unknown, every flag and strategy with its
 * event (no half-applied write).
 */
async function compare(restored: Service, before: Exported, sentDuring: Set<string>, ackedAfter: string[]) {
  const now = byFlag(await exportAll(restored));
  const problems: string[] = [];
  for (const [name, entry] of byFlag(before)) {
    if (JSON.stringify(now.get(name)) !== JSON.stringify(entry)) problems.push(`${name}: differs or missing`);
  }
  const known = new Set([...byFlag(before).keys(), ...sentDuring]);
  for (const name of now.keys()) if (!known.has(name)) problems.push(`${name}: never written`);
  for (const name of ackedAfter) if (now.has(name)) problems.push(`${name}: written after the backup`);
  const events: { events: { type: string; featureName: string; data: { id?: string } }[] } = { events: [] };
  for (let offset = 0; ; offset += 1000) {
    const page = (await ok(
      restored,
      `/api/admin/search/events?limit=1000&offset=${offset}&type=IS_ANY_OF:feature-created,feature-strategy-add`,
    )) as typeof events;
    events.events.push(...page.events);
    if (page.events.length < 1000) break;
  }
  for (const [name, entry] of now) {
    if (!events.events.some((e) => e.type === 'feature-created' && e.featureName === name)) {
      problems.push(`${name}: no feature-created event`);
    }
    for (const s of entry.strategies) {
      if (!events.events.some((e) => e.type === 'feature-strategy-add' && e.data?.id === s.id)) {
        problems.push(`${name}: strategy ${s.id} without its event`);
      }
    }
  }
  expect(problems).toEqual([]);
  return now.size;
}

describe.runIf(!onPostgres)('npm run backup / restore (PGlite)', () => {
  it(
    'copies the running service during writes; the restore has all acknowledged before, consistently',
    async () => {
      const original = await store(pgliteStore);
      const dataDir = original.env.DATA_DIR!;
      const service = await startService({ ...original.env, INIT_ADMIN_API_TOKENS: TOKEN });
      for (let i = 0; i < 20; i++) await flagWithStrategy(service, `before-${i}`);
      const before = await exportAll(service);
      expect(before.features).toHaveLength(20);

      const writers = startWriters(service, 'during');
      await waitFor(() => writers.acked.length >= 5, 'writes before the backup');
      const dir = await scratch();
      const file = join(dir, 'backup.tar.gz');
      const backup = await node('scripts/backup.mjs', file, '--url', service.url, '--token', TOKEN);
      const backupEnded = performance.now();
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(/^Backup written to .+ \(\d+\.\d MiB, \d+\.\d s\)\.$/m);
      await waitFor(() => writers.acked.some((a) => a.sentAt > backupEnded + 100), 'writes after the backup');
      await writers.stop();
      const ackedAfter = writers.acked.filter((a) => a.sentAt > backupEnded).map((a) => a.name);
      const duringBackup = writers.acked.length - ackedAfter.length;
      const size = (await stat(file)).size;

      // The route itself: a gzipped tarball named as a download; how long writes wait for it.
      const routeStarted = performance.now();
      const direct = await service.request('/api/admin/instance-admin/backup', TOKEN);
      const routeMs = Math.round(performance.now() - routeStarted);
      expect(direct.status).toBe(200);
      expect(direct.headers.get('content-type')).toBe('application/gzip');
      expect(direct.headers.get('content-disposition')).toMatch(
        /^attachment; filename="flagship-backup-.+\.tar\.gz"$/,
      );
      expect((await direct.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

      // Without a token, or with a wrong one, no copy.
      expect((await service.request('/api/admin/instance-admin/backup', undefined)).status).toBe(401);
      const refused = await node(
        'scripts/backup.mjs',
        join(dir, 'no.tar.gz'),
        '--url',
        service.url,
        '--token',
        '*:*.wrong',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/the service answered 401/);
      // An existing backup is never replaced without --force.
      const again = await node('scripts/backup.mjs', file, '--url', service.url, '--token', TOKEN);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/exists/);

      // --offline is refused while a service holds the folder (PGlite's postmaster.pid is there).
      const busy = await node(
        'scripts/backup.mjs',
        join(dir, 'busy.tar.gz'),
        '--offline',
        '--data-dir',
        dataDir,
      );
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/postmaster\.pid exists: a service is running on this folder/);

      const final = await exportAll(service);
      expect(await service.stop('SIGTERM')).toBe(0);

      // Restore never writes over a data directory; into a new one it does.
      const filesBefore = await readdir(dataDir);
      const over = await node('scripts/restore.mjs', file, '--data-dir', dataDir);
      expect(over.code).toBe(1);
      expect(over.stderr).toMatch(/not empty; restoring never overwrites data/);
      expect(await readdir(dataDir)).toEqual(filesBefore);

      const restoredDir = join(dir, 'restored');
      const restore = await node('scripts/restore.mjs', file, '--data-dir', restoredDir);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect(restore.stdout).toMatch(/Restored .+ flags, \d+ events, \d+ migrations/);

      const restored = await startService({ DATA_DIR: restoredDir, INIT_ADMIN_API_TOKENS: TOKEN });
      expect(restored.stdout()).not.toContain('Applied migrations');
      const flags = await compare(restored, before, writers.sent, ackedAfter);
      expect(await restored.stop('SIGTERM')).toBe(0);

      // Offline, the service stopped: the same from the data directory, which stays untouched.
      const offlineFile = join(dir, 'offline.tar.gz');
      const offline = await node('scripts/backup.mjs', offlineFile, '--offline', '--data-dir', dataDir);
      expect(offline.stderr).toBe('');
      expect(offline.code).toBe(0);
      expect(await readdir(dataDir)).toEqual(filesBefore);
      // --force into the used folder: the old one is moved aside, never deleted.
      const forced = await node('scripts/restore.mjs', offlineFile, '--data-dir', restoredDir, '--force');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain(`${final.features.length} flags`);
      expect(forced.stdout).toMatch(/now .+restored\.before-restore-.+ \(nothing deleted\)/);
      expect((await readdir(dir)).filter((f) => f.startsWith('restored.before-restore-'))).toHaveLength(1);

      process.stdout.write(
        `backup (pglite): ${(size / 1_048_576).toFixed(1)} MiB in ${(backup.ms / 1000).toFixed(1)} s while ${writers.acked.length} flags were written (${duringBackup} before it ended); the route alone ${routeMs} ms; restore ${(restore.ms / 1000).toFixed(1)} s; ${flags} flags restored; offline backup ${(offline.ms / 1000).toFixed(1)} s\n`,
      );
    },
    SLOW,
  );
});

describe.runIf(onPostgres)('backups on PostgreSQL', () => {
  it(
    'the backup route points at pg_dump; pg_dump during writes and pg_restore give a consistent copy',
    async () => {
      const serverUrl = process.env.TEST_DATABASE_URL!;
      const original = await store(() => postgresStore(serverUrl));
      const service = await startService({ ...original.env, INIT_ADMIN_API_TOKENS: TOKEN });
      const route = await service.request('/api/admin/instance-admin/backup', TOKEN);
      expect(route.status).toBe(404);
      expect(((await route.json()) as { message: string }).message).toMatch(/pg_dump/);

      for (let i = 0; i < 20; i++) await flagWithStrategy(service, `before-${i}`);
      const before = await exportAll(service);
      const writers = startWriters(service, 'during');
      await waitFor(() => writers.acked.length >= 5, 'writes before the backup');
      const dir = await scratch();
      const file = join(dir, 'flagship.dump');
      // As README "Backups" says: one consistent snapshot, whatever writes go on meanwhile.
      const dump = await run('pg_dump', ['--format=custom', `--file=${file}`, original.url!]);
      const dumpEnded = performance.now();
      expect(dump.stderr).toBe('');
      expect(dump.code).toBe(0);
      await waitFor(() => writers.acked.some((a) => a.sentAt > dumpEnded + 100), 'writes after the dump');
      await writers.stop();
      const ackedAfter = writers.acked.filter((a) => a.sentAt > dumpEnded).map((a) => a.name);
      expect(await service.stop('SIGTERM')).toBe(0);

      const name = `flagship_restored_${process.pid}_${Date.now()}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      cleanups.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      });
      const target = withDatabase(serverUrl, name);
      const restore = await run('pg_restore', ['--no-owner', `--dbname=${target}`, file]);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);

      const restored = await startService({ DATABASE_URL: target, INIT_ADMIN_API_TOKENS: TOKEN });
      expect(restored.stdout()).not.toContain('Applied migrations');
      const flags = await compare(restored, before, writers.sent, ackedAfter);
      expect(await restored.stop('SIGTERM')).toBe(0);
      process.stdout.write(
        `backup (postgres): pg_dump ${((await stat(file)).size / 1024).toFixed(0)} KiB in ${(dump.ms / 1000).toFixed(1)} s during writes, pg_restore ${(restore.ms / 1000).toFixed(1)} s, ${flags} flags restored\n`,
      );
    },
    SLOW,
  );
});
