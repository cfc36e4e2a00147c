import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from './config-sql.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { asUser, createUser, login } from './people.js';

/**
 * Security review, issue 43, finding 2: regular expressions must not block the event loop. The
 * app listens on 127.0.0.1 and `/health` is asked continuously while the attacks of the finding
 * are sent; every health answer must come within 100 ms. Without the bounds of
 * src/evaluation/patterns.ts, `.{1000}` x 142 costs 155-350 ms to compile and 4.8 s to match
 * 20,000 characters, and the largest pattern allowed now 0.1-0.4 s on them.
 */
const HUGE = '.{1000}'.repeat(142);
/**
 * The longest a /health answer may take while the attacks are answered (see its use). On PGlite
 * the SQL of the requests runs on the service's own thread (issue 46), so a loaded machine
 * stretches every query of theirs into the health answers' wait: 287 ms was seen there on a CI
 * machine also running other test files. Without the bounds of patterns.ts one answer waits 6-63 s.
 */
const HEALTH_MS = process.env.TEST_ENGINE === 'postgres' ? 250 : 1000;
/** 2,992 instructions, just under the program bound (3,000). */
const AT_BOUND = '.{1000}.{1000}.{990}';
const LONG_USER = 'u'.repeat(20_000);

let t: TestApp;
let base: string;
let viewer: string;
let frontendToken: string;
const project = uniqueName('rx');
const flag = {
  bound: uniqueName('rx-bound'),
  stored: uniqueName('rx-stored'),
  plain: uniqueName('rx-plain'),
};

async function must(method: string, url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res;
}

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await must('POST', '/api/admin/projects', { id: project, name: project });
  const features = `/api/admin/projects/${project}/features`;
  for (const name of Object.values(flag)) await must('POST', features, { name });
  await must('POST', `${features}/${flag.bound}/environments/development/strategies`, {
    name: 'default',
    constraints: [{ contextName: 'userId', operator: 'REGEX', value: AT_BOUND }],
  });
  // Stored as before the bounds existed (the API refuses it now), or as an upstream may send it.
  await configSql(t).addStrategy(flag.stored, 'development', {
    name: 'default',
    constraints: [{ contextName: 'userId', operator: 'REGEX', value: HUGE }],
  });
  for (const name of Object.values(flag))
    await must('POST', `${features}/${name}/environments/development/on`);
  frontendToken = await configSql(t).addToken('frontend', [project], 'development');
  viewer = await login(t, (await createUser(t, 'Viewer')).username);
});
afterAll(() => t.close());

/** Asks `/health` one request after another until `attacks` settles; returns each answer's time. */
async function healthDuring<T>(attacks: Promise<T>): Promise<{ result: T; times: number[] }> {
  let settled = false;
  const done = attacks.finally(() => {
    settled = true;
  });
  const times: number[] = [];
  do {
    const started = performance.now();
    const res = await fetch(`${base}/health`);
    await res.text();
    times.push(performance.now() - started);
    expect(res.status).toBe(200);
  } while (!settled);
  return { result: await done, times };
}

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('regular expressions cannot block the service (issue 43, finding 2)', () => {
  it('keeps /health answering at once (100 ms target) while the attacks are answered', async () => {
    const cookie = asUser(viewer).cookie;
    const imported = uniqueName('rx-import');
    const validate = (pattern = HUGE, count = 30) =>
      post(
        '/api/admin/features-batch/validate',
        {
          project: 'default',
          environment: 'development',
          data: {
            features: [{ name: imported, type: 'release', project: 'default' }],
            featureStrategies: Array.from({ length: count }, (_, i) => ({
              name: 'default',
              featureName: imported,
              parameters: {},
              // Distinct patterns, so that no answer comes from the cache of compiled patterns.
              constraints: [{ contextName: 'userId', operator: 'REGEX', value: `${pattern}${i}` }],
              segments: [],
            })),
            featureEnvironments: [],
            contextFields: [],
            featureTags: [],
            segments: [],
            tagTypes: [],
            dependencies: [],
            links: [],
          },
        },
        { cookie },
      );
    const frontend = (userId = LONG_USER) =>
      post('/api/frontend', { context: { userId } }, { authorization: frontendToken });
    const playground = (userId = LONG_USER) =>
      post(
        '/api/admin/playground',
        { environment: 'development', projects: [project], context: { appName: 'web', userId } },
        { cookie },
      );
    // Each route twice with harmless input first: what the first requests cost (code compiled by
    // V8, the configuration loaded) is not what this test is about.
    for (const _ of [1, 2]) {
      await validate('^u-[0-9]+$');
      await frontend('u1');
      await playground('u1');
    }
    await fetch(`${base}/health`).then((res) => res.text());

    const { result, times } = await healthDuring(
      (async () => ({
        validate: await validate(),
        // Allowed patterns, each compiled in a few ms, but 200 distinct ones: the compile budget.
        many: await validate(AT_BOUND, 200),
        frontend: await frontend(),
        playground: await playground(),
      }))(),
    );

    expect(times.length).toBeGreaterThanOrEqual(3);
    // The target is 100 ms, what this test measures on a quiet machine (PGlite's SQL runs on the
    // service's thread, issue 46); the bound leaves room for a CI machine running three test files
    // on two cores. Without the bounds of patterns.ts the same requests block for seconds.
    expect(Math.max(...times), JSON.stringify(times.map(Math.round))).toBeLessThan(HEALTH_MS);

    expect(result.validate.status, JSON.stringify(result.validate.body).slice(0, 2000)).toBe(200);
    const invalid = result.validate.body.errors.find((e: { message: string }) =>
      e.message.startsWith('The following strategies have invalid constraints'),
    );
    expect(invalid.affectedItems).toHaveLength(30);
    for (const item of invalid.affectedItems) expect(item).toMatch(/regular expression too large\/complex/);

    expect(result.many.status).toBe(200);
    const overBudget = result.many.body.errors
      .flatMap((e: { affectedItems: string[] }) => e.affectedItems)
      .filter((item: string) => item.includes('regular expressions too many/large in one request'));
    expect(overBudget.length).toBeGreaterThan(150);

    expect(result.frontend.status).toBe(200);
    expect(result.frontend.body.toggles.map((x: { name: string }) => x.name)).toEqual([flag.plain]);

    expect(result.playground.status).toBe(200);
    const enabled = Object.fromEntries(
      result.playground.body.features.map((f: { name: string; isEnabled: boolean }) => [f.name, f.isEnabled]),
    );
    expect(enabled).toEqual({ [flag.bound]: false, [flag.stored]: false, [flag.plain]: true });
  });

  it('refuses the patterns over the bounds with a 400 that says why', async () => {
    const res = await t.send(
      'POST',
      `/api/admin/projects/${project}/features/${flag.plain}/environments/development/strategies`,
      { name: 'default', constraints: [{ contextName: 'userId', operator: 'REGEX', value: HUGE }] },
    );
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ name: 'ValidationError', id: expect.any(String) });
    expect(body.details).toEqual([
      {
        path: '/body/constraints/0/value',
        message: expect.stringMatching(
          /^The REGEX value ".{100}…" is refused: regular expression too large\/complex: its repetitions expand to about 142000 instructions, more than 3000\.$/,
        ),
      },
    ]);
    const naming = await t.send('POST', '/api/admin/projects', {
      id: uniqueName('rx-named'),
      name: 'Named',
      featureNaming: { pattern: HUGE },
    });
    expect(naming.statusCode).toBe(400);
    expect(naming.json().details).toEqual([
      {
        path: '/body/featureNaming/pattern',
        message:
          'The pattern is refused: regular expression too large/complex: its repetitions expand to about 142006 instructions, more than 3000.',
      },
    ]);
  });
});
