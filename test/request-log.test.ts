import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineStore, killAll, type Service, type Store, startService } from './process.js';

/**
 * At the default log level the service logs admin and UI requests, not the requests SDKs repeat
 * (client API, frontend API, OFREP): those would fill the log with identical lines. With
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

  /** The URLs of the requests the service logged as completed. */
  const logged = () =>
    service
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string }; reqId?: string })
      .filter((entry) => entry.msg === 'incoming request')
      .map((entry) => entry.req?.url ?? '');

  it('logs admin requests, not SDK polling; stops with exit code 0 on SIGTERM', async () => {
    const client = await token('client');
    const frontend = await token('frontend');
    expect((await service.request('/api/admin/projects', admin)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await service.request('/api/client/features', client)).status).toBe(200);
      expect((await service.request('/api/frontend?userId=u1', frontend)).status).toBe(200);
    }
    const urls = logged();
    expect(urls).toContain('/api/admin/projects');
    expect(urls).toContain('/api/admin/api-tokens');
    expect(urls.filter((url) => url.startsWith('/api/client') || url.startsWith('/api/frontend'))).toEqual(
      [],
    );
    expect(await service.stop('SIGTERM')).toBe(0);
  });
});
