import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS } from './errors.js';

describe('docs/errors.md', () => {
  it('lists exactly the error names and statuses the code has', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| (\w+) \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_KINDS);
  });
});
