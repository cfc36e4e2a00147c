import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.js';

/**
 * "Nothing a client sends may produce a 500", for every documented operation: hostile path
 * parameters and bodies, sent to each route of the OpenAPI document.
 */
let t: TestApp;
let operations: { method: string; path: string; hasBody: boolean }[];
beforeAll(async () => {
  t = await startTestApp();
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      hasBody: !!op.requestBody,
    })),
  );
});
afterAll(() => t.close());

const PARAMS = [
  'default',
  'no-such-thing',
  '99999999999999999999',
  '-1',
  '0',
  'a%00b',
  'x'.repeat(300),
  '%C0%AF',
  "'; DROP TABLE features; --",
];
/** Bodies as the JSON text sent (so keys such as `__proto__` reach the server as written). */
const BODIES: string[] = [
  {},
  [],
  null,
  'text',
  42,
  { name: 'x\u0000y', value: 'x\u0000y', type: 'x\u0000y' },
  { name: 123, type: [], values: {}, weight: 'heavy', enabled: 'yes', constraints: 'none' },
  { name: 'n', id: 2 ** 40, weight: 1e300, sortOrder: -1e20, segments: [2 ** 40, -5, 'x'] },
  {
    constraints: [{ contextName: 'x', operator: 'REGEX', value: '(a+)+$' }],
    variants: [{ name: 'v', weight: 5000 }],
  },
  [
    { op: 'replace', path: '/a/b/c/d', value: 1 },
    { op: 'move', from: '/x', path: '/x/y' },
  ],
  { properties: { a: 'b'.repeat(50_000) }, appName: 'a', environments: ['x'], context: { appName: 'a' } },
]
  .map((body) => JSON.stringify(body))
  .concat(
    // An object literal would lose its `__proto__` key to JSON.stringify: this text keeps it.
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  );

/** What is wrong with a 4xx answer: every one must be JSON with a string id, name and message. */
function errorBodyProblem(res: LightMyRequestResponse): string | undefined {
  if (!String(res.headers['content-type']).startsWith('application/json')) {
    return `content-type ${res.headers['content-type']}`;
  }
  let body: Record<string, unknown>;
  try {
    body = res.json();
  } catch {
    return 'a body that is not JSON';
  }
  const missing = ['id', 'name', 'message'].filter((key) => typeof body?.[key] !== 'string');
  if (missing.length > 0) return `no string ${missing.join(', ')}`;
  if (!/^[0-9a-f-]{36}$/.test(body.id as string)) return `id ${body.id}`;
  return undefined;
}

describe('every documented operation', () => {
  it('answers hostile path parameters and bodies without a 500, each 4xx with a JSON error body', async () => {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const op of operations) {
      for (const param of PARAMS) {
        const url = op.path.replace(/\{\w+\}/g, encodeURIComponent(param).replaceAll('%25', '%'));
        const bodies = op.hasBody ? BODIES : [undefined];
        for (const body of bodies) {
          const res = await t.request({
            method: op.method as 'POST',
            url,
            ...(body === undefined ? {} : { payload: body, headers: { 'content-type': 'application/json' } }),
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const problem =
            res.statusCode >= 500
              ? 'a server error'
              : res.statusCode >= 400
                ? errorBodyProblem(res)
                : undefined;
          if (problem)
            failures.push(
              `${op.method} ${url} ${body?.slice(0, 80)} → ${res.statusCode} (${problem}) ${res.body.slice(0, 200)}`,
            );
        }
      }
    }
    expect(failures).toEqual([]);
    // The requests reached the operations: most are refused, some succeed.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    expect((statuses.get(400) ?? 0) + (statuses.get(404) ?? 0)).toBeGreaterThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  }, 300_000);
});
