import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStore, killAll, type Service, type Store, startService } from './process.js';

/**
 * At the default log level the service logs admin and UI requests, one line each, not the requests
 * SDKs repeat (client API, frontend API, OFREP) nor the health probes (`/health`, `/ready`) a load
 * balancer repeats: those would fill the log with identical lines. With
 * LOG_LEVEL=debug everything is logged (see test/logs-secrets.test.ts). SIGTERM ends it cleanly.
 */
describe('request log at LOG_LEVEL=info', () => {
  let store: Store;
  let service: Service;
  const admin = `*:*.${randomBytes(16).toString('hex')}`;

  beforeAll(async () => {
    store = await engineStore();
    service = await startService({ ...store.env, LOG_LEVEL: 'info', INIT_ADMIN_API_TOKENS: admin });
  }, 60_000);
  afterAll(async () => {
    await killAll();
    await store?.remove();
  });

  const token = async (type: string) => {
    const res = await service.request('/api/admin/api-tokens', admin, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tokenName: `log-${type}`, type, environment: 'development', projects: ['*'] }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { secret: string }).secret;
  };

  interface Line {
    msg?: string;
    reqId?: string;
    req?: { method?: string; url?: string };
    res?: { statusCode?: number };
    responseTime?: number;
  }
  /** Every JSON line the service printed. */
  const lines = () =>
    service
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line);
  /** The request lines: one per answered request. */
  const logged = () => lines().filter((entry) => entry.msg === 'request completed');

  it('logs admin requests in one line each, not SDK polling nor health probes; stops with exit code 0 on SIGTERM', async () => {
    const client = await token('client');
    const frontend = await token('frontend');
    expect((await service.request('/api/admin/projects', admin)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await service.request('/api/client/features', client)).status).toBe(200);
      expect((await service.request('/api/frontend?userId=u1', frontend)).status).toBe(200);
      expect((await service.request('/health', undefined)).status).toBe(200);
      expect((await service.request('/ready', undefined)).status).toBe(200);
    }
    expect((await service.request('/api/admin/projects/nowhere', admin)).status).toBe(404);
    // A line is written once its answer has gone: all of them have once the service has stopped.
    expect(await service.stop('SIGTERM')).toBe(0);
    const requests = logged();
    const urls = requests.map((entry) => entry.req?.url ?? '');
    expect(urls).toContain('/api/admin/api-tokens');
    expect(urls.filter((url) => /^\/api\/(client|frontend)|^\/(health|ready)/.test(url))).toEqual([]);
    // One line per request, with what there is to know about it.
    const projects = requests.filter((entry) => entry.req?.url === '/api/admin/projects');
    expect(projects).toHaveLength(1);
    expect(projects[0]).toMatchObject({ req: { method: 'GET' }, res: { statusCode: 200 } });
    expect(projects[0]?.responseTime).toBeTypeOf('number');
    expect(projects[0]?.reqId).toBeTypeOf('string');
    const missing = requests.filter((entry) => entry.req?.url === '/api/admin/projects/nowhere');
    expect(missing).toMatchObject([{ res: { statusCode: 404 } }]);
    // No other line names a request: Fastify's "incoming request" is gone.
    const ids = new Set(requests.map((entry) => entry.reqId));
    expect(lines().filter((entry) => ids.has(entry.reqId) && entry.msg !== 'request completed')).toEqual([]);
    expect(lines().filter((entry) => entry.msg === 'incoming request')).toEqual([]);
  });
});
