import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.js';

/**
 * How much of Unleash's open-source admin, client and frontend API this service serves, measured
 * against the operation list of Unleash 8.2's OpenAPI document (test/golden/unleash-operations.json,
 * written by scripts/unleash-operations.mjs). An operation counts as served when this service's
 * own document has the same method and path (parameter names aside).
 */
interface Operation {
  method: string;
  path: string;
  operationId: string;
}
const unleash: { source: string; operations: Operation[] } = JSON.parse(
  readFileSync(new URL('./golden/unleash-operations.json', import.meta.url), 'utf8'),
);

/** Not to be served (issue "the rest of the Unleash admin API"): telemetry, UI errors, Edge tokens. */
const NOT_NEEDED = new Set([
  'GET /api/admin/telemetry/settings',
  'POST /api/admin/record-ui-error',
  'POST /edge/issue-token',
  'POST /edge/validate',
  'POST /api/client/metrics/bulk',
]);

/**
 * The floor: served operations may only grow. Raise it when operations land; the README's
 * compatibility figure is this test's output.
 */
const AT_LEAST = 206;

const key = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('coverage of the Unleash API', () => {
  it(`serves at least ${AT_LEAST} of the operations of ${unleash.source}`, async () => {
    const ours = (await t.send('GET', '/docs/openapi.json')).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const served = new Set(
      Object.entries(ours.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => key(method, path)),
      ),
    );
    const wanted = unleash.operations.filter((o) => !NOT_NEEDED.has(`${o.method} ${o.path}`));
    const missing = wanted.filter((o) => !served.has(key(o.method, o.path)));
    const count = wanted.length - missing.length;
    console.log(
      `Unleash API coverage: ${count} of ${wanted.length} operations (${((100 * count) / wanted.length).toFixed(1)} %); ` +
        `missing:\n  ${missing.map((o) => `${o.method} ${o.path} (${o.operationId})`).join('\n  ')}`,
    );
    expect(count).toBeGreaterThanOrEqual(AT_LEAST);
  });
});
