import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './harness.js';
import { buildConfiguration, transfer } from './transfer.js';

/**
 * `npm run flags -- export|import` (scripts/flags.ts) against listening test servers: export from
 * one, import into another, the exports agree; dry runs change nothing; refusals exit with 1.
 */
const run = promisify(execFile);
const SCRIPT = new URL('../scripts/flags.ts', import.meta.url).pathname;

let source: TestApp;
let target: TestApp;
let dir: string;
const urls = new Map<TestApp, string>();

beforeAll(async () => {
  [source, target] = await Promise.all([startTestApp(), startTestApp()]);
  for (const t of [source, target]) urls.set(t, await t.app.listen({ port: 0, host: '127.0.0.1' }));
  dir = await mkdtemp(join(tmpdir(), 'flags-cli-'));
  await buildConfiguration(source, 'cli');
  const segment = await target.send('POST', '/api/admin/segments', {
    name: 'cli-beta',
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
  });
  expect(segment.statusCode).toBe(201);
}, 60_000);
afterAll(async () => {
  await Promise.all([source?.close(), target?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI; resolves with its exit code and output, whatever the code. */
async function cli(t: TestApp, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['--import', 'tsx', SCRIPT, ...args, '--url', urls.get(t) as string, '--token', ADMIN_TOKEN];
  try {
    const { stdout, stderr } = await run(process.execPath, argv, { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr };
  }
}

const query = { environment: 'development', project: 'default' };

describe('npm run flags', () => {
  it('export to a file, import it elsewhere: the same export there', async () => {
    const file = join(dir, 'export.json');
    const exported = await cli(source, [
      'export',
      '--environment',
      'development',
      '--project',
      'default',
      '--out',
      file,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('done in');
    const document = JSON.parse(await readFile(file, 'utf8'));
    expect(document).toEqual(await transfer(source).export(query));

    const dry = await cli(target, [
      'import',
      '--project',
      'default',
      '--environment',
      'development',
      '--file',
      file,
      '--dry-run',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('dry run: nothing imported');
    expect((await transfer(target).export(query)).features).toEqual([]);

    const imported = await cli(target, [
      'import',
      '--project',
      'default',
      '--environment',
      'development',
      '--file',
      file,
      '--force',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(await transfer(target).export(query)).toEqual(document);

    // The same file again, without --force: nothing to change, nothing imported, exit 0.
    const again = await cli(target, [
      'import',
      '--project',
      'default',
      '--environment',
      'development',
      '--file',
      file,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing to change');
    expect(await transfer(target).export(query)).toEqual(document);
  }, 120_000);

  it('exports YAML to a .yaml file and to standard output as JSON', async () => {
    const file = join(dir, 'export.yaml');
    const res = await cli(source, ['export', '--environment', 'development', '--all', '--out', file]);
    expect(res.code, res.stderr).toBe(0);
    const expected = await transfer(source).export({ environment: 'development', features: [] });
    expect(parseYaml(await readFile(file, 'utf8'))).toEqual(expected);
    const out = await cli(source, ['export', '--environment', 'development', '--all']);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(expected);
  }, 120_000);

  it('exits with 1 on a refused import, a file that is no export, and missing options', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        features: [{ name: 'cli-bad', project: 'default' }],
        featureStrategies: [{ name: 'nope', featureName: 'cli-bad' }],
      }),
    );
    const refused = await cli(target, [
      'import',
      '--project',
      'default',
      '--environment',
      'development',
      '--file',
      bad,
    ]);
    expect(refused.code).toBe(1);
    const notExport = join(dir, 'not.json');
    await writeFile(notExport, '{"hello": 1}');
    const res = await cli(target, [
      'import',
      '--project',
      'default',
      '--environment',
      'development',
      '--file',
      notExport,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('no "features" list');
    const missing = await cli(target, ['export']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('export needs --environment');
    const after = await transfer(target).export({ environment: 'development', features: ['cli-bad'] });
    expect(after.features).toEqual([]);
  }, 120_000);
});
