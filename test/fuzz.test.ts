import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_KINDS } from '../src/platform/http/errors.js';
import { startTestApp, type TestApp } from './harness.js';

/**
 * Issue 17: generated bad input over every operation of the app's own OpenAPI document
 * (property-based, fast-check). Each run draws an operation and breaks its request: path
 * parameters (odd strings, bad percent-escapes, 10 KB names), query parameters, the body (wrong
 * types, missing and extra fields, huge and deeply nested values, NUL, lone surrogates, RTL,
 * `__proto__` keys, duplicate keys in the raw JSON), the content type, the If-Match header.
 * Issue 43 added cost generators: JSON Patches whose `copy` operations double the document,
 * bodies nested 10,000 deep, and REGEX constraints whose compiled program is huge; a request
 * carrying one of them must be answered within COSTLY_MS.
 *
 * Every answer must be below 500; every 4xx a JSON `{id, name, message}` whose name is one of the
 * error kinds with its status; and a refused request must leave the event log as it was.
 *
 * CI runs a small fixed sample; `npm run fuzz` runs it long (FUZZ_RUNS, FUZZ_SEED to vary).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? 17);

type Json = Record<string, unknown>;
interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Operation {
  method: string;
  path: string;
  params: Param[];
  body: Json | undefined;
  ifMatch: boolean;
}

let t: TestApp;
let operations: Operation[];
/** Path parameter values that exist, so generated requests also reach past the lookups. */
const known: Record<string, string> = {
  projectId: 'default',
  project: 'default',
  environment: 'development',
  featureName: 'fuzz-flag',
  name: 'fuzz-flag',
};

beforeAll(async () => {
  // FUZZ_LOG=1 logs the server's errors (the stack behind a 500).
  t = await startTestApp(process.env.FUZZ_LOG ? { config: { LOG_LEVEL: 'error' } } : {});
  const res = await t.request({
    method: 'GET',
    url: '/docs/openapi.json',
    headers: { authorization: undefined },
  });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { paths: Record<string, Record<string, Json>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const params = (op.parameters ?? []) as Param[];
      const content = (op.requestBody as Json | undefined)?.content as
        | Record<string, { schema: Json }>
        | undefined;
      return {
        method: method.toUpperCase(),
        path,
        params,
        body: content?.['application/json']?.schema,
        ifMatch: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match'),
      };
    }),
  );
  const flag = await t.send('POST', '/api/admin/projects/default/features', { name: 'fuzz-flag' });
  expect(flag.statusCode).toBe(200);
  const strategy = await t.send(
    'POST',
    '/api/admin/projects/default/features/fuzz-flag/environments/development/strategies',
    { name: 'default' },
  );
  expect(strategy.statusCode).toBe(200);
  known.strategyId = strategy.json().id;
}, 60_000);
afterAll(() => t?.close());

/** A value the schema accepts, as far as a short walk can tell (the start of each mutation). */
function sample(schema: Json | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key] as Json[] | undefined;
    if (options?.length) return sample(options[0], depth + 1);
  }
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, sample(s, depth + 1)]));
    }
    case 'array':
      return [sample(schema.items as Json, depth + 1)];
    case 'string':
      return schema.format === 'date-time' ? '2024-01-01T00:00:00.000Z' : 'fuzz';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

const deep = (levels: number, kind: 'array' | 'object') => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
};

/** A raw JSON text nested `levels` deep, built as text (JSON.stringify itself would overflow). */
const deepText = (levels: number, kind: 'array' | 'object') =>
  kind === 'array'
    ? `${'['.repeat(levels)}1${']'.repeat(levels)}`
    : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Issue 43: a value whose place in a body is replaced by `deepText` after serialisation. */
const DEEP_MARK = '__fuzz_deep_10000__';

/** Issue 43: each `copy` from the whole document doubles it (40 of them would need 2^40 copies). */
const patchDoubling = (into: string) =>
  Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '', path: `${into}${i}` }));

/** Issue 43: valid RE2 whose compiled program is huge (~142,000 instructions, ~0.35 s to compile). */
const COSTLY_PATTERN = '.{1000}'.repeat(142);
const costlyConstraint = { contextName: 'userId', operator: 'REGEX', value: COSTLY_PATTERN };

/**
 * A request carrying one of the cost generators must be answered well within the general 10 s:
 * unbounded, each of them takes seconds (or the whole heap) on its own.
 */
const COSTLY_MS = 3_000;
const isCostly = (payload: string | undefined) =>
  payload !== undefined &&
  (payload.includes('.{1000}.{1000}') || payload.includes('"from":""') || payload.length > 20_000);

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\u202Egnp.exe',
  'שלום עולם',
  '\uFEFF',
  '😀'.repeat(50),
  'n'.repeat(10_240),
  '../../etc/passwd',
  "'; DROP TABLE features; --",
  '__proto__',
  'constructor',
  '%00',
  '{{7*7}}',
  '2024-13-45T99:99:99Z',
  'NaN',
  '-0',
];

const oddString = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

/** A value of any type, often the wrong one, sometimes huge or deeply nested. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: oddString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(null, true, false, 0, -1, 2 ** 53 + 1, 1e308, -1e308, 0.5, [], {}),
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      deep(400, 'array'),
      deep(400, 'object'),
      Array.from({ length: 5000 }, (_, i) => `v${i}`),
      Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      DEEP_MARK,
      patchDoubling('/d'),
      patchDoubling('/variants/'),
      COSTLY_PATTERN,
      costlyConstraint,
      Array.from({ length: 30 }, () => costlyConstraint),
      [{ name: 'flexibleRollout', constraints: Array.from({ length: 30 }, () => costlyConstraint) }],
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Replaces, removes or adds one field somewhere in `value` (a copy). */
function mutate(
  value: unknown,
  pathChoice: number,
  action: 'replace' | 'remove' | 'add',
  replacement: unknown,
) {
  const copy = structuredClone(value);
  const containers: (Json | unknown[])[] = [];
  const collect = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    containers.push(v as Json);
    for (const child of Object.values(v as Json)) collect(child, depth + 1);
  };
  collect(copy, 0);
  if (containers.length === 0) return replacement;
  const target = containers[pathChoice % containers.length] as Json;
  const keys = Object.keys(target);
  const key = keys.length > 0 ? (keys[pathChoice % keys.length] as string) : 'extra';
  if (action === 'remove') {
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else if (action === 'add') {
    if (Array.isArray(target)) target.push(replacement);
    else target[`extra${pathChoice}`] = replacement;
  } else {
    target[key] = replacement;
  }
  return copy;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  '',
];

const BAD_ESCAPES = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%F0%9F%98',
  '%00',
  '%2F',
  '%25',
  '%u0041',
  '%%%',
  '%ED%A0%80',
];

interface Draw {
  op: number;
  params: { kind: 'known' | 'odd' | 'escape' | 'long'; text: string }[];
  query: [string, string][];
  bodyKind: 'mutated' | 'hostile' | 'raw' | 'none';
  pathChoice: number;
  action: 'replace' | 'remove' | 'add';
  value: unknown;
  raw: string;
  contentType: string;
  ifMatch: string | undefined;
}

const RAW_BODIES = [
  '{"__proto__":{"polluted":true},"name":"proto"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"name":"a","name":"b","name":{"x":1}}',
  '{"features":["a"],"features":{"__proto__":{}}}',
  '[{"op":"add","path":"/__proto__/polluted","value":true}]',
  '[{"op":"replace","path":"/constructor/prototype/polluted","value":true}]',
  '{"name":"\\u0000"}',
  '{"name":"\\ud800"}',
  '{',
  '',
  'null',
  '"just a string"',
  '1e999999',
  `{"name":"${'a'.repeat(10_240)}"}`,
  '[]'.repeat(3),
  '\uFEFF{}',
  deepText(10_000, 'object'),
  deepText(10_000, 'array'),
  `{"parameters":${deepText(10_000, 'object')}}`,
  JSON.stringify(patchDoubling('/d')),
];

const draw: fc.Arbitrary<Draw> = fc.record({
  op: fc.nat(),
  params: fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constant({ kind: 'known' as const, text: '' }) },
      { weight: 2, arbitrary: oddString.map((text) => ({ kind: 'odd' as const, text })) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...BAD_ESCAPES).map((text) => ({ kind: 'escape' as const, text })),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'long' as const, text: 'p'.repeat(10_240) }) },
    ),
    { minLength: 4, maxLength: 4 },
  ),
  query: fc.array(
    fc.tuple(fc.constantFrom('limit', 'offset', 'query', 'type', 'project', '__proto__', 'x'), oddString),
    {
      maxLength: 2,
    },
  ),
  bodyKind: fc.constantFrom('mutated', 'mutated', 'mutated', 'hostile', 'raw', 'none'),
  pathChoice: fc.nat(),
  action: fc.constantFrom('replace', 'replace', 'remove', 'add'),
  value: hostile,
  raw: fc.constantFrom(...RAW_BODIES),
  contentType: fc.constantFrom(...CONTENT_TYPES),
  ifMatch: fc
    .option(fc.constantFrom('"stale"', '*', 'W/"x"', '', '"a", "b"', '\u00ff'), { freq: 3 })
    .map((v) => v ?? undefined),
});

/** Builds the request a draw describes (the URL with its path parameters already encoded). */
function build(d: Draw) {
  const op = operations[d.op % operations.length] as Operation;
  let i = 0;
  const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const p = d.params[i++ % d.params.length] as Draw['params'][number];
    if (p.kind === 'known') return encodeURIComponent(known[name] ?? 'fuzz');
    if (p.kind === 'escape') return p.text;
    // Lone surrogates cannot be percent-encoded as UTF-8: send them as the broken escape.
    return p.text.replace(/[^A-Za-z0-9._~-]/g, (c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        return '%ED%A0%80';
      }
    });
  });
  const query = d.query
    .map(
      ([k, v]) =>
        `${k}=${v.replace(/[^A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').slice(-2)}`)}`,
    )
    .join('&');
  let payload: string | undefined;
  if (d.bodyKind === 'raw') payload = d.raw;
  else if (d.bodyKind === 'hostile') payload = JSON.stringify(d.value) ?? 'null';
  else if (d.bodyKind === 'mutated' && op.body) {
    payload = JSON.stringify(mutate(sample(op.body), d.pathChoice, d.action, d.value)) ?? 'null';
  }
  payload = payload?.replace(`"${DEEP_MARK}"`, deepText(10_000, 'object'));
  const headers: Record<string, string | undefined> = {};
  if (payload !== undefined && d.contentType !== '') headers['content-type'] = d.contentType;
  if (d.ifMatch !== undefined) headers['if-match'] = d.ifMatch;
  return { op, method: op.method, url: query ? `${url}?${query}` : url, payload, headers };
}

async function maxEventId(): Promise<number> {
  const rows = await t.database.session((run) => run('SELECT coalesce(max(id), 0) AS id FROM events'));
  return Number(rows[0]?.id);
}

/** What is wrong with an answer; undefined when it is fine. */
function problem(res: LightMyRequestResponse): string | undefined {
  if (res.statusCode >= 500) return 'a server error';
  if (res.statusCode < 400) return undefined;
  if (!String(res.headers['content-type']).startsWith('application/json')) {
    return `content-type ${res.headers['content-type']}`;
  }
  let body: Json;
  try {
    body = res.json();
  } catch {
    return 'an error body that is not JSON';
  }
  if (typeof body !== 'object' || body === null) return 'an error body that is not an object';
  const missing = ['id', 'name', 'message'].filter((key) => typeof body[key] !== 'string');
  if (missing.length > 0) return `no string ${missing.join(', ')}`;
  const status = (ERROR_KINDS as Record<string, number>)[body.name as string];
  if (status === undefined) return `unknown error name ${body.name}`;
  if (status !== res.statusCode) return `${body.name} with status ${res.statusCode}`;
  return undefined;
}

type Built = ReturnType<typeof build>;

/** What a run of requests found: failures by kind, statuses, refusals that changed something. */
class Findings {
  readonly failures = new Map<string, string>();
  readonly statuses = new Map<number, number>();
  changedOnRejection = 0;

  /**
   * Sends one request and records what is wrong with its answer: none after 10 s (COSTLY_MS for a
   * cost generator), a 500, a malformed error, or a refusal that recorded an event.
   */
  async check(req: Built): Promise<void> {
    const before = await maxEventId();
    const started = performance.now();
    const answer = t.request({
      method: req.method as 'POST',
      url: req.url,
      headers: req.headers,
      ...(req.payload !== undefined && { payload: req.payload }),
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), 10_000);
    });
    const res = await Promise.race([answer, late]).finally(() => clearTimeout(timer));
    const what = `${req.method} ${req.url.slice(0, 200)} ${String(req.payload).slice(0, 200)}`;
    if (res === 'late') {
      this.failures.set(`${req.op.method} ${req.op.path}: no answer within 10 s`, what);
      await answer;
      return;
    }
    const took = performance.now() - started;
    if (isCostly(req.payload) && took > COSTLY_MS) {
      this.failures.set(
        `${req.op.method} ${req.op.path}: a costly generator took ${Math.round(took)} ms`,
        what,
      );
    }
    if (req.op.path === '/api/admin/maintenance' && res.statusCode < 300) {
      // A valid request may turn maintenance mode on, where writes get 503 by design: turn it off.
      const off = await t.send('POST', '/api/admin/maintenance', { enabled: false });
      expect(off.statusCode).toBeLessThan(300);
    }
    this.statuses.set(res.statusCode, (this.statuses.get(res.statusCode) ?? 0) + 1);
    let found = problem(res);
    if (!found && res.statusCode >= 400 && (await maxEventId()) !== before) {
      found = 'a refused request recorded an event';
      this.changedOnRejection += 1;
    }
    if (found) {
      const key = `${req.op.method} ${req.op.path}: ${found}`;
      if (!this.failures.has(key)) {
        this.failures.set(
          key,
          `${req.method} ${req.url.slice(0, 200)} [${req.headers['content-type']}] ${String(req.payload).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`,
        );
      }
    }
  }

  summary(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
  }

  expectClean() {
    expect([...this.failures].map(([k, v]) => `${k}\n    ${v}`)).toEqual([]);
    expect(this.changedOnRejection).toBe(0);
  }
}

/** Every `constraints` array in a sample body replaced by 30 costly REGEX constraints; undefined when it has none. */
function withCostlyConstraints(value: unknown): unknown {
  let replaced = false;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, child]) => {
        if (k !== 'constraints') return [k, walk(child)];
        replaced = true;
        return [k, Array.from({ length: 30 }, () => costlyConstraint)];
      }),
    );
  };
  const result = walk(value);
  return replaced ? result : undefined;
}

describe('generated bad requests over every operation of the OpenAPI document', () => {
  it(`answer below 500 with well-formed errors and change nothing when refused (seed ${SEED}, ${RUNS} runs)`, async () => {
    const found = new Findings();
    await fc.assert(
      fc.asyncProperty(draw, (d) => found.check(build(d))),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.info(
      `fuzz seed ${SEED}, ${RUNS} requests over ${operations.length} operations; ${found.summary()}`,
    );
    found.expectClean();
    // The generated requests did reach the operations: many refused, some accepted.
    expect([...found.statuses.keys()].some((s) => s < 300)).toBe(true);
    expect((found.statuses.get(400) ?? 0) + (found.statuses.get(404) ?? 0)).toBeGreaterThan(RUNS / 4);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  }, 600_000);

  it('answer each cost generator on every operation with a body, within COSTLY_MS (issue 43)', async () => {
    const found = new Findings();
    const known = { kind: 'known' as const, text: '' };
    const base: Draw = {
      op: 0,
      params: [known, known, known, known],
      query: [],
      bodyKind: 'mutated',
      pathChoice: 0,
      action: 'replace',
      value: DEEP_MARK,
      raw: '',
      contentType: 'application/json',
      ifMatch: undefined,
    };
    const sent = { patch: 0, deep: 0, regex: 0 };
    for (const [i, op] of operations.entries()) {
      if (!op.body) continue;
      const req = build({ ...base, op: i });
      // A body nested 10,000 deep in place of the sample's first field.
      await found.check(req);
      sent.deep++;
      if (op.body.type === 'array') {
        // A JSON Patch route (or another list body): 40 copies of the whole document into itself.
        await found.check({ ...req, payload: JSON.stringify(patchDoubling('/d')) });
        sent.patch++;
      }
      const costly = withCostlyConstraints(sample(op.body));
      if (costly !== undefined) {
        await found.check({ ...req, payload: JSON.stringify(costly) });
        sent.regex++;
      }
    }
    console.info(`fuzz cost generators: ${JSON.stringify(sent)}; ${found.summary()}`);
    found.expectClean();
    // Each generator reached the routes it is about: the PATCH routes, the strategy writes.
    expect(sent.patch).toBeGreaterThanOrEqual(4);
    expect(sent.regex).toBeGreaterThanOrEqual(4);
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  }, 600_000);
});
