import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rules of docs/architecture.md, checked on every import of the repo's TypeScript:
 * a slice imports another only through its `index.ts`; so do the app, tests, scripts and benches;
 * `src/evaluation/` imports only itself; `src/platform/` knows no slice and no engine; no slice
 * imports another that imports it back, directly or through others. (Only
 * `*.store.ts` and `src/platform/db` import Kysely: Biome's `noRestrictedImports` holds that one.)
 */
const root = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return /\.(ts|mts)$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative import of a file, resolved to a repo path with the `.ts` source extension. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) =>
    relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts'),
  );
}

const slice = (path: string) => /^src\/features\/([^/]+)\//.exec(path)?.[1];

function violations(): string[] {
  const found: string[] = [];
  const all = ['src', 'test', 'scripts', 'bench'].flatMap(files);
  for (const file of all) {
    for (const target of importsOf(file)) {
      const from = slice(file);
      const to = slice(target);
      if (to && to !== from && target !== `src/features/${to}/index.ts`) {
        found.push(`${file} imports ${target}: import the ${to} slice through its index.ts`);
      }
      if (file.startsWith('src/evaluation/') && !target.startsWith('src/evaluation/')) {
        found.push(`${file} imports ${target}: the engine imports only itself`);
      }
      if (file.startsWith('src/platform/') && /^src\/(features|evaluation)\//.test(target)) {
        found.push(`${file} imports ${target}: the platform knows no slice or engine`);
      }
    }
  }
  return found;
}

/**
 * The slices' import graph (non-test files; an edge per slice another imports) and one cycle in
 * it as `a → b → … → a`, if any: shared shapes live in leaves (`shapes`, `flag-rows`), so no slice
 * needs another that needs it back.
 */
function sliceCycle(): string | undefined {
  const graph = new Map<string, Set<string>>();
  for (const file of files('src/features').filter((f) => !/\.test\.tsx?$/.test(f))) {
    const from = slice(file) as string;
    for (const target of importsOf(file)) {
      const to = slice(target);
      if (to && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node].join(' → ');
    if (done.has(node)) return undefined;
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('dependency rules', () => {
  it('reads the imports it checks', () => {
    expect(importsOf('src/app.ts')).toContain('src/features/flags/index.ts');
  });

  it('holds for every import in src, test, scripts and bench', () => {
    expect(violations()).toEqual([]);
  });

  it('has no import cycle between slices', () => {
    expect(sliceCycle()).toBeUndefined();
  });
});
