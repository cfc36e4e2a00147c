import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';

/**
 * The embedded database on a data directory: created apart (initdb in a child process, so the
 * service never holds initdb's memory) and opened with the configured shared buffers, given on
 * PGlite's command line so the directory's postgresql.conf stays as initdb wrote it.
 */
describe.runIf(process.env.TEST_ENGINE === 'pglite')('PGlite data directory and memory settings', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const setting = async (database: Awaited<ReturnType<typeof openDatabase>>, name: string) => {
    const { rows } = await sql<{ setting: string; unit: string | null }>`
      SELECT setting, unit FROM pg_settings WHERE name = ${name}`.execute(database.db);
    return rows[0];
  };

  it('creates a new directory, opens it with the shared buffers asked for, and keeps its data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flagship-pglite-'));
    dirs.push(dir);
    const first = await openDatabase({ dataDir: dir, sharedBuffersMb: 16 });
    // 8 kB pages: PGlite's default is 16,384 (128 MB); asked for 16 MB it must be far below.
    const buffers = await setting(first, 'shared_buffers');
    expect(buffers?.unit).toBe('8kB');
    expect(Number(buffers?.setting)).toBeLessThanOrEqual(4096);
    await sql`CREATE TABLE kept (value text)`.execute(first.db);
    await sql`INSERT INTO kept VALUES ('still here')`.execute(first.db);
    await first.close();

    const conf = await readFile(join(dir, 'postgresql.conf'), 'utf8');
    expect(conf).toMatch(/^shared_buffers = 128MB/m);
    expect(conf).toMatch(/^timezone = /m);

    const again = await openDatabase({ dataDir: dir });
    expect(Number((await setting(again, 'shared_buffers'))?.setting)).toBe(16384);
    const { rows } = await sql<{ value: string }>`SELECT value FROM kept`.execute(again.db);
    expect(rows).toEqual([{ value: 'still here' }]);
    await again.close();
  }, 120_000);
});
