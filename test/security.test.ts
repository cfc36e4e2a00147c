import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTML_CSP, redactUrl } from '../src/platform/http/security-headers.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { asUser, createUser, login } from './people.js';
import { ensureUiBuilt, launch } from './ui/browser.js';

const NO_AUTH = { authorization: undefined };
const HTML = { ...NO_AUTH, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

/** The headers every answer carries, whatever its status. */
function expectSecurityHeaders(headers: Record<string, unknown>, what: string) {
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['x-frame-options'], what).toBe('DENY');
  expect(headers['referrer-policy'], what).toBe('no-referrer');
  expect(headers['content-security-policy'], what).toMatch(/frame-ancestors 'none'/);
  expect(headers.server, what).toBeUndefined();
  expect(headers['x-powered-by'], what).toBeUndefined();
}

describe('security headers and no version banner', () => {
  let t: TestApp;
  beforeAll(async () => {
    ensureUiBuilt();
    t = await startTestApp();
  });
  afterAll(() => t.close());
  /** The app's address, listening from the first test that needs a socket on. */
  const address = async () => {
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  };

  it('are on JSON answers, errors of every kind and 404s, with the strict API policy', async () => {
    const answers = {
      ok: await t.send('GET', '/api/admin/projects'),
      health: await t.send('GET', '/health', undefined, NO_AUTH),
      unauthenticated: await t.send('GET', '/api/admin/projects', undefined, NO_AUTH),
      wrongToken: await t.send('GET', '/api/admin/projects', undefined, { authorization: 'nope' }),
      invalid: await t.send('POST', '/api/admin/projects', { id: '' }),
      notFound: await t.send('GET', '/api/admin/no-such-thing'),
      unsupportedType: await t.request({
        method: 'POST',
        url: '/api/admin/projects',
        payload: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      openapi: await t.send('GET', '/docs/openapi.json', undefined, NO_AUTH),
    };
    for (const [what, res] of Object.entries(answers)) {
      expectSecurityHeaders(res.headers, what);
      expect(res.headers['content-security-policy'], what).toBe("default-src 'none'; frame-ancestors 'none'");
      // Plain http (no https PUBLIC_URL): no HSTS.
      expect(res.headers['strict-transport-security'], what).toBeUndefined();
    }
    expect(answers.unauthenticated.statusCode).toBe(401);
    expect(answers.notFound.statusCode).toBe(404);
    expect(answers.unsupportedType.statusCode).toBe(415);
  });

  it('are also on the answers made before Fastify has a reply: HTTP parser errors, bad percent-escapes', async () => {
    const { port } = new URL(await address());
    /** Sends raw bytes and reads the answer until the server closes or sends a whole JSON body. */
    const raw = (bytes: string) =>
      new Promise<{ status: number; headers: Record<string, string>; body: unknown }>((resolve, reject) => {
        const socket = createConnection({ port: Number(port), host: '127.0.0.1' });
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('utf8');
        });
        socket.on('error', reject);
        socket.on('close', () => {
          const [head = '', body = ''] = text.split('\r\n\r\n');
          const [statusLine = '', ...lines] = head.split('\r\n');
          const headers = Object.fromEntries(
            lines.map((line) => [
              line.slice(0, line.indexOf(':')).toLowerCase(),
              line.slice(line.indexOf(':') + 1).trim(),
            ]),
          );
          resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) });
        });
        socket.write(bytes);
        // A parsed request on a keep-alive connection: close our side once it is answered.
        setTimeout(() => socket.end(), 500);
      });
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    const tooLarge = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const escaped = await t.send('GET', '/api/admin/%zz');
    const badEscape = {
      status: escaped.statusCode,
      headers: escaped.headers as Record<string, string>,
      body: escaped.json(),
    };
    expect([garbage.status, tooLarge.status, badEscape.status]).toEqual([400, 431, 400]);
    for (const [what, answer] of Object.entries({ garbage, tooLarge, badEscape })) {
      expectSecurityHeaders(answer.headers, what);
      expect(answer.body, what).toMatchObject({ name: expect.any(String), message: expect.any(String) });
    }
  });

  it('give pages (the UI at / and client routes, Swagger UI at /docs) the HTML policy', async () => {
    for (const url of ['/', '/projects/default', '/docs', '/docs/']) {
      const res = await t.send('GET', url, undefined, HTML);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expectSecurityHeaders(res.headers, url);
      expect(res.headers['content-security-policy'], url).toBe(HTML_CSP);
    }
    expect(HTML_CSP).toContain("script-src 'self'");
    expect(HTML_CSP).toContain("style-src 'self' 'unsafe-inline'");
    expect(HTML_CSP).not.toContain('upgrade-insecure-requests');
    const asset = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(
      (await t.send('GET', '/', undefined, HTML)).body,
    );
    const script = await t.send('GET', `/${asset?.[1]}`, undefined, NO_AUTH);
    expect(script.statusCode).toBe(200);
    expectSecurityHeaders(script.headers, 'asset');
  });

  it('announce no product or version: no Server header, error bodies are {id,name,message}', async () => {
    const errors = [
      await t.send('GET', '/api/admin/no-such-thing'),
      await t.send('GET', '/api/admin/projects', undefined, NO_AUTH),
      await t.send('POST', '/api/admin/projects', { id: '' }),
      await t.request({
        method: 'POST',
        url: '/api/admin/projects',
        payload: '{"id":',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    for (const res of errors) {
      expect(res.headers.server).toBeUndefined();
      const body = res.json() as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['id', 'message', 'name']));
      // A 401 for want of a credential also says how to sign in, as Unleash's does (no product).
      const known = ['id', 'name', 'message', 'details', 'type', 'path', 'defaultHidden'];
      expect(Object.keys(body).filter((k) => !known.includes(k))).toEqual([]);
      expect(res.body).not.toContain(version);
      expect(res.body).not.toMatch(/fastify|node\.js|v\d+\.\d+\.\d+/i);
    }
  });

  it('the public Prometheus endpoint carries no Node or service version', async () => {
    const res = await t.send('GET', '/internal-backstage/prometheus', undefined, NO_AUTH);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_requests_total');
    expect(res.body).not.toContain('nodejs_version_info');
    expect(res.body).not.toContain(process.version);
  });

  it('add HSTS only when PUBLIC_URL is https', async () => {
    const https = await startTestApp({ config: { PUBLIC_URL: 'https://flags.example.com' } });
    try {
      for (const url of ['/health', '/api/admin/projects', '/']) {
        const res = await https.send('GET', url, undefined, url === '/' ? HTML : {});
        expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000');
      }
    } finally {
      await https.close();
    }
  });

  it('break neither the web UI nor Swagger UI in Chromium (no CSP violation, both render)', async () => {
    const base = await address();
    const browser = await launch();
    const violations: string[] = [];
    browser.page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    try {
      await browser.page.goto(`${base}/login`);
      await browser.page.getByLabel('Username or email').waitFor();
      await browser.page.goto(`${base}/docs`);
      await browser.page.locator('.swagger-ui .info').first().waitFor();
      expect(violations).toEqual([]);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('rate limits on token creation (TOKEN_CREATE_RATE_LIMIT per minute per caller)', () => {
  let t: TestApp;
  const future = () => new Date(Date.now() + 86_400_000).toISOString();
  beforeAll(async () => {
    t = await startTestApp({ config: { TOKEN_CREATE_RATE_LIMIT: 2 } });
  });
  afterAll(() => t.close());

  const expect429 = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.json()).toEqual({
      id: expect.any(String),
      name: 'RateLimitError',
      message: expect.stringMatching(/^Too many requests; try again in /),
    });
    expectSecurityHeaders(res.headers as Record<string, unknown>, '429');
  };

  it('POST /api/admin/api-tokens: 429 with Retry-After past the limit, counted per caller', async () => {
    const create = (authorization?: string) =>
      t.send(
        'POST',
        '/api/admin/api-tokens',
        { tokenName: uniqueName('tok'), type: 'admin' },
        authorization ? { authorization } : {},
      );
    const first = await create();
    expect(first.statusCode).toBe(201);
    expect((await create()).statusCode).toBe(201);
    expect429(await create());
    // Another caller (the admin token just made) has a budget of its own.
    const other = first.json().secret as string;
    expect((await create(other)).statusCode).toBe(201);
    // Unauthenticated requests are refused before they count (401, not 429).
    expect((await t.send('POST', '/api/admin/api-tokens', {}, NO_AUTH)).statusCode).toBe(401);
  });

  it('project API tokens, personal access tokens and service account tokens are limited too', async () => {
    const project = async () =>
      t.send('POST', '/api/admin/projects/default/api-tokens', {
        tokenName: uniqueName('ptok'),
        type: 'client',
        environment: 'development',
      });
    expect((await project()).statusCode).toBe(201);
    expect((await project()).statusCode).toBe(201);
    expect429(await project());

    const user = await createUser(t, 'Admin');
    const cookie = await login(t, user.username);
    const pat = () =>
      t.send('POST', '/api/admin/user/tokens', { description: 'ci', expiresAt: future() }, asUser(cookie));
    expect((await pat()).statusCode).toBe(201);
    expect((await pat()).statusCode).toBe(201);
    expect429(await pat());

    const account = await t.send('POST', '/api/admin/service-account', {
      username: uniqueName('svc'),
      name: 'Robot',
      rootRole: 'Viewer',
    });
    expect(account.statusCode).toBe(201);
    const sa = () =>
      t.send('POST', `/api/admin/service-account/${account.json().id}/token`, {
        description: 'deploy',
        expiresAt: future(),
      });
    expect((await sa()).statusCode).toBe(201);
    expect((await sa()).statusCode).toBe(201);
    expect429(await sa());
  });
});

describe('user-supplied patterns run with RE2 (linear time): a catastrophic pattern answers fast', () => {
  let t: TestApp;
  const EVIL = '(a+)+$';
  // Within the 4,096 characters a small pattern reads (src/evaluation/patterns.ts MAX_INPUT), so
  // that the pattern really runs on it; a longer value never matches (docs/evaluation.md §6.3).
  const LONG = `${'a'.repeat(4_000)}!`;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const result = await run();
    return [result, performance.now() - started];
  };

  it('project naming pattern: checking the example and new flag names', async () => {
    const id = uniqueName('proj');
    const [refused, ms] = await timed(() =>
      t.send('POST', '/api/admin/projects', {
        id,
        name: id,
        featureNaming: { pattern: EVIL, example: `${'a'.repeat(90)}!` },
      }),
    );
    expect(refused.statusCode).toBe(400);
    expect(ms).toBeLessThan(2000);
    expect(
      (await t.send('POST', '/api/admin/projects', { id, name: id, featureNaming: { pattern: EVIL } }))
        .statusCode,
    ).toBe(201);
    const name = `${'a'.repeat(90)}!`;
    const [flag, flagMs] = await timed(() => t.send('POST', `/api/admin/projects/${id}/features`, { name }));
    expect(flag.statusCode).toBe(400);
    expect(flagMs).toBeLessThan(2000);
    const [check, checkMs] = await timed(() =>
      t.send('POST', '/api/admin/features/validate', { name, projectId: id }),
    );
    expect(check.statusCode).toBe(400);
    expect(checkMs).toBeLessThan(2000);
  });

  it('REGEX constraint: validated as RE2 and evaluated on a long context value in linear time', async () => {
    const constraint = { contextName: 'userId', operator: 'REGEX', value: EVIL };
    expect((await t.send('POST', '/api/admin/constraints/validate', constraint)).statusCode).toBe(204);
    // Not RE2 (backreference, lookahead): refused rather than run with backtracking.
    for (const value of ['(a)\\1', '(?=a)a']) {
      const res = await t.send('POST', '/api/admin/constraints/validate', { ...constraint, value });
      expect(res.statusCode, value).toBe(400);
    }
    const flag = uniqueName('regex');
    expect((await t.send('POST', '/api/admin/projects/default/features', { name: flag })).statusCode).toBe(
      200,
    );
    const base = `/api/admin/projects/default/features/${flag}/environments/development`;
    const strategy = await t.send('POST', `${base}/strategies`, {
      name: 'default',
      constraints: [constraint],
    });
    expect(strategy.statusCode).toBe(200);
    expect((await t.send('POST', `${base}/on`)).statusCode).toBe(200);
    const [res, ms] = await timed(() =>
      t.send('POST', '/api/admin/playground', {
        environment: 'development',
        projects: ['default'],
        context: { appName: 'web', userId: LONG },
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(ms).toBeLessThan(2000);
    const evaluated = (res.json().features as { name: string; isEnabled: boolean }[]).find(
      (f) => f.name === flag,
    );
    expect(evaluated?.isEnabled).toBe(false);
    const matching = await t.send('POST', '/api/admin/playground', {
      environment: 'development',
      projects: ['default'],
      context: { appName: 'web', userId: 'a'.repeat(4_000) },
    });
    expect(
      (matching.json().features as { name: string; isEnabled: boolean }[]).find((f) => f.name === flag)
        ?.isEnabled,
    ).toBe(true);
    const overBound = await t.send('POST', '/api/admin/playground', {
      environment: 'development',
      projects: ['default'],
      context: { appName: 'web', userId: 'a'.repeat(4_097) },
    });
    expect(
      (overBound.json().features as { name: string; isEnabled: boolean }[]).find((f) => f.name === flag)
        ?.isEnabled,
    ).toBe(false);
  });
});

describe('redactUrl (what the request log shows of a URL)', () => {
  it.each([
    ['/api/admin/api-tokens/default:development.abcdef0123', '/api/admin/api-tokens/[redacted]'],
    ['/api/admin/invite-link/tokens/s3cr3t', '/api/admin/invite-link/tokens/[redacted]'],
    ['/invite/s3cr3t/signup', '/invite/[redacted]/signup'],
    ['/auth/reset/validate?token=abc&x=1', '/auth/reset/validate?token=[redacted]&x=1'],
    ['/reset-password?x=1&token=abc', '/reset-password?x=1&token=[redacted]'],
    ['/new-user?invite=s3cr3t', '/new-user?invite=[redacted]'],
    ['/x?apiKey=1&session=2', '/x?apiKey=[redacted]&session=[redacted]'],
    ['/api/admin/projects?query=a', '/api/admin/projects?query=a'],
    ['/api/client/features', '/api/client/features'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it('takes linear time on a hostile URL', () => {
    const url = `/x?${'token'.repeat(5000)}&${'a='.repeat(5000)}`;
    const started = performance.now();
    redactUrl(url);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('scripts/audit.mjs (npm audit of production dependencies with an allow-list)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flagship-audit-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const GHSA = 'GHSA-xxxx-yyyy-zzzz'.replace(/[xyz]/g, 'c');
  const report = {
    auditReportVersion: 2,
    vulnerabilities: {
      leftpad: {
        name: 'leftpad',
        severity: 'high',
        via: [
          {
            source: 1099999,
            name: 'leftpad',
            title: 'Prototype pollution',
            url: `https://github.com/advisories/${GHSA}`,
            severity: 'high',
            range: '<1.2.0',
          },
        ],
      },
      wrapper: { name: 'wrapper', severity: 'high', via: ['leftpad'] },
    },
    metadata: { dependencies: { prod: 42 } },
  };

  const run = async (options: { report: unknown; allow: unknown; strict?: boolean; today?: string }) => {
    const reportFile = join(dir, `${uniqueName('report')}.json`);
    const allowFile = join(dir, `${uniqueName('allow')}.json`);
    await writeFile(
      reportFile,
      typeof options.report === 'string' ? options.report : JSON.stringify(options.report),
    );
    await writeFile(allowFile, JSON.stringify(options.allow));
    const args = ['scripts/audit.mjs', '--report', reportFile, '--allowlist', allowFile];
    args.push('--today', options.today ?? '2026-06-01');
    if (options.strict) args.push('--strict');
    const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
    return { code: result.status, output: `${result.stdout}${result.stderr}` };
  };
  const entry = (overrides: Record<string, unknown> = {}) => ({
    id: GHSA,
    package: 'leftpad',
    reason: 'only reached with trusted input',
    reviewBy: '2026-12-31',
    ...overrides,
  });

  it('passes a clean report and fails on an advisory that is not allowed', async () => {
    expect((await run({ report: { ...report, vulnerabilities: {} }, allow: { advisories: [] } })).code).toBe(
      0,
    );
    const refused = await run({ report, allow: { advisories: [] } });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`FAIL not in the allow-list: leftpad <1.2.0: Prototype pollution`);
  });

  it('accepts an allowed advisory by GHSA id, URL or advisory number, for its package only', async () => {
    for (const id of [GHSA, `https://github.com/advisories/${GHSA}`, '1099999']) {
      const res = await run({ report, allow: { advisories: [entry({ id })] } });
      expect(res.code, id).toBe(0);
      expect(res.output).toContain('accepted until 2026-12-31');
    }
    expect((await run({ report, allow: { advisories: [entry({ package: 'other' })] } })).code).toBe(1);
  });

  it('fails on expired or malformed allow-list entries, even when the audit cannot run', async () => {
    const expired = await run({ report, allow: { advisories: [entry({ reviewBy: '2026-05-31' })] } });
    expect(expired.code).toBe(1);
    expect(expired.output).toContain('has passed');
    expect((await run({ report, allow: { advisories: [entry({ reason: '' })] } })).code).toBe(1);
    expect((await run({ report, allow: { advisories: [entry({ reviewBy: 'soon' })] } })).code).toBe(1);
    const offline = { message: '405 Method Not Allowed', statusCode: 405 };
    expect(
      (await run({ report: offline, allow: { advisories: [entry({ reviewBy: '2026-01-01' })] } })).code,
    ).toBe(1);
  });

  it('an unreachable advisory service: NOT DONE, exit 0; with --strict exit 2', async () => {
    const offline = { message: '405 Method Not Allowed - POST .../advisories/bulk', statusCode: 405 };
    const soft = await run({ report: offline, allow: { advisories: [] } });
    expect(soft.code).toBe(0);
    expect(soft.output).toContain('NOT DONE');
    expect((await run({ report: offline, allow: { advisories: [] }, strict: true })).code).toBe(2);
    expect((await run({ report: 'not json', allow: { advisories: [] }, strict: true })).code).toBe(2);
  });

  it('the committed allow-list is well-formed and has no expired entry', async () => {
    const res = await run({
      report: { ...report, vulnerabilities: {} },
      allow: JSON.parse(await readFile('audit-allowlist.json', 'utf8')),
      today: new Date().toISOString().slice(0, 10),
    });
    expect(res.code, res.output).toBe(0);
  });
});
