import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { createUser, GOOD_PASSWORD } from './people.js';

/**
 * Security review, issue 43, finding 7: application URLs only http(s), `Cache-Control: no-store` on
 * every answer showing a secret, rollout percentages only 0-100 in plain decimal. (The
 * INIT_ADMIN_API_TOKENS length rule is tested in test/platform.test.ts and test/lifecycle.test.ts.)
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const expectError400 = (res: { statusCode: number; json: () => unknown }, path: string) => {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { id: string; name: string; message: string; details?: { path?: string }[] };
  expect(body).toMatchObject({
    id: expect.any(String),
    name: 'ValidationError',
    message: expect.any(String),
  });
  expect(body.details?.map((d) => d.path)).toContain(path);
};

describe('application url', () => {
  const edit = (appName: string, body: unknown) =>
    t.send('POST', `/api/admin/metrics/applications/${appName}`, body);
  const urlOf = async (appName: string) =>
    (await t.send('GET', `/api/admin/metrics/applications/${appName}`)).json().url;

  it('refuses anything but an absolute http or https URL, changing nothing', async () => {
    const appName = uniqueName('app');
    expect((await edit(appName, { url: 'https://github.com/acme/booking' })).statusCode).toBe(202);
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'github.com/acme',
      '//evil.example',
      'http://',
    ]) {
      const res = await edit(appName, { url, description: 'changed' });
      expectError400(res, '/body/url');
    }
    const app = (await t.send('GET', `/api/admin/metrics/applications/${appName}`)).json();
    expect(app).toMatchObject({ url: 'https://github.com/acme/booking', description: null });
    // An unknown application is not created by a refused request either.
    const fresh = uniqueName('app');
    expectError400(await edit(fresh, { url: 'javascript:alert(1)' }), '/body/url');
    expect((await t.send('GET', `/api/admin/metrics/applications/${fresh}`)).statusCode).toBe(404);
  });

  it('accepts http and https URLs, and the empty string (the UI clears the field so)', async () => {
    const appName = uniqueName('app');
    for (const url of ['http://intranet.example:8080/app', 'HTTPS://GitHub.com/acme', '']) {
      expect((await edit(appName, { url })).statusCode).toBe(202);
      expect(await urlOf(appName)).toBe(url);
    }
  });

  it('an SDK registration carries no url: an extra `url` field is ignored, never stored', async () => {
    const token = (
      await t.send('POST', '/api/admin/api-tokens', {
        tokenName: 'sdk',
        type: 'client',
        environment: 'development',
        projects: ['*'],
      })
    ).json().secret as string;
    const appName = uniqueName('sdk-app');
    const res = await t.send(
      'POST',
      '/api/client/register',
      { appName, instanceId: 'i1', url: 'javascript:alert(1)', strategies: [] },
      { authorization: token },
    );
    expect(res.statusCode).toBe(202);
    expect(await urlOf(appName)).toBeNull();
  });
});

describe('Cache-Control: no-store on answers that show a secret', () => {
  const noStore = (
    res: { statusCode: number; headers: Record<string, unknown>; body: string },
    status: number,
  ) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
  };
  const future = () => new Date(Date.now() + 86_400_000).toISOString();

  it('API token creation, instance-wide and per project', async () => {
    noStore(
      await t.send('POST', '/api/admin/api-tokens', {
        tokenName: 'ci',
        type: 'client',
        environment: 'development',
        projects: ['*'],
      }),
      201,
    );
    noStore(
      await t.send('POST', '/api/admin/projects/default/api-tokens', {
        tokenName: 'ci',
        type: 'client',
        environment: 'development',
      }),
      201,
    );
  });

  it('personal access token and service-account token creation', async () => {
    const user = await createUser(t, 'Admin');
    const login = await t.send(
      'POST',
      '/auth/simple/login',
      { username: user.username, password: GOOD_PASSWORD },
      { authorization: undefined },
    );
    const cookie = login.cookies.find((c) => c.name === 'flagship-session');
    noStore(
      await t.send(
        'POST',
        '/api/admin/user/tokens',
        { description: 'mine', expiresAt: future() },
        { authorization: undefined, cookie: `${cookie?.name}=${cookie?.value}` },
      ),
      201,
    );
    const account = await t.send('POST', '/api/admin/service-account', {
      name: 'Robot',
      username: uniqueName('robot'),
      rootRole: 'Viewer',
    });
    expect(account.statusCode, account.body).toBe(201);
    noStore(
      await t.send('POST', `/api/admin/service-account/${account.json().id}/token`, {
        description: 'deploy',
        expiresAt: future(),
      }),
      201,
    );
  });

  it('invite links, password reset links and a new user with its one-time link', async () => {
    noStore(
      await t.send('POST', '/api/admin/invite-link/tokens', { name: 'team', expiresAt: future() }),
      201,
    );
    const created = await t.send('POST', '/api/admin/user-admin', {
      username: uniqueName('new'),
      rootRole: 'Viewer',
    });
    noStore(created, 201);
    expect(created.json().inviteLink).toMatch(/\S/);
    noStore(
      await t.send('POST', '/api/admin/user-admin/reset-password', { id: created.json().username }),
      200,
    );
  });

  it('edge token validation, which repeats the secrets it was sent', async () => {
    const secret = (
      await t.send('POST', '/api/admin/api-tokens', {
        tokenName: 'edge',
        type: 'client',
        environment: 'development',
        projects: ['*'],
      })
    ).json().secret as string;
    const res = await t.send('POST', '/edge/validate', { tokens: [secret] }, { authorization: undefined });
    noStore(res, 200);
    expect(res.json().tokens[0].token).toBe(secret);
  });
});

describe('rollout percentages', () => {
  const BAD = ['1e400', '-5', '101', 'abc', '', 'Infinity', '0x10', ' 50', '50%', '1e2', '100.5', 'NaN'];
  const GOOD = ['0', '50', '100', '50.5', '100.0', '7'];
  const base = (flag: string) => `/api/admin/projects/default/features/${flag}/environments/development`;
  const newFlag = async () => {
    const name = uniqueName('rollout');
    await api(t).createFlag('default', { name });
    return name;
  };
  const add = (flag: string, name: string, parameters: Record<string, string>) =>
    t.send('POST', `${base(flag)}/strategies`, { name, parameters });

  it('refuses bad values on add (flexibleRollout and the legacy gradual rollouts), storing nothing', async () => {
    const flag = await newFlag();
    for (const rollout of BAD) {
      expectError400(
        await add(flag, 'flexibleRollout', { rollout, stickiness: 'default', groupId: flag }),
        '/body/parameters/rollout',
      );
    }
    for (const name of ['gradualRolloutUserId', 'gradualRolloutSessionId', 'gradualRolloutRandom']) {
      expectError400(
        await add(flag, name, { percentage: '1e400', groupId: flag }),
        '/body/parameters/percentage',
      );
    }
    expect(await api(t).count('feature_strategies', 'feature_name = $1', [flag])).toBe(0);
  });

  it('accepts 0 to 100 in plain decimal on add; a JSON number stays a 400 (parameters are strings)', async () => {
    const flag = await newFlag();
    for (const rollout of GOOD) {
      const res = await add(flag, 'flexibleRollout', { rollout, stickiness: 'default', groupId: flag });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().parameters.rollout).toBe(rollout);
    }
    const number = await t.send('POST', `${base(flag)}/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: 50 },
    });
    expect(number.statusCode).toBe(400);
  });

  it('refuses bad values on update (PUT) and PATCH, leaving the strategy as it was', async () => {
    const flag = await newFlag();
    const created = await add(flag, 'flexibleRollout', {
      rollout: '50',
      stickiness: 'default',
      groupId: flag,
    });
    const url = `${base(flag)}/strategies/${created.json().id}`;
    for (const rollout of BAD) {
      const put = await t.send('PUT', url, { name: 'flexibleRollout', parameters: { rollout } });
      expectError400(put, '/body/parameters/rollout');
      const patch = await t.send('PATCH', url, [
        { op: 'replace', path: '/parameters/rollout', value: rollout },
      ]);
      expectError400(patch, '/body/parameters/rollout');
    }
    expect((await t.send('GET', url)).json().parameters.rollout).toBe('50');
    for (const rollout of ['0', '100']) {
      expect(
        (await t.send('PUT', url, { name: 'flexibleRollout', parameters: { rollout } })).statusCode,
      ).toBe(200);
      const patch = await t.send('PATCH', url, [
        { op: 'replace', path: '/parameters/rollout', value: rollout },
      ]);
      expect(patch.statusCode, patch.body).toBe(200);
    }
  });

  it('refuses bad values on import (features-batch), validate naming the strategy', async () => {
    const flag = uniqueName('imported');
    const body = (rollout: string) => ({
      project: 'default',
      environment: 'development',
      data: {
        features: [{ name: flag }],
        featureStrategies: [{ name: 'flexibleRollout', featureName: flag, parameters: { rollout } }],
        tagTypes: [],
      },
    });
    for (const rollout of BAD) {
      const res = await t.send('POST', '/api/admin/features-batch/import', body(rollout));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ id: expect.any(String), name: 'ValidationError' });
      expect(res.body).toContain('invalid rollout percentage');
      const validation = (await t.send('POST', '/api/admin/features-batch/validate', body(rollout))).json();
      expect(validation.errors).toEqual([
        expect.objectContaining({
          message: 'The following strategies have an invalid rollout percentage:',
          affectedItems: [expect.stringContaining(`featureStrategies[0] (${flag}, flexibleRollout)`)],
        }),
      ]);
    }
    expect((await api(t).getFlag('default', flag)).statusCode).toBe(404);
    const ok = await t.send('POST', '/api/admin/features-batch/import', body('100'));
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('refuses bad values on state import, importing nothing', async () => {
    const flag = uniqueName('state');
    const doc = (rollout: string) => ({
      version: 4,
      features: [{ name: flag, project: 'default' }],
      featureStrategies: [
        {
          id: `${flag}-s`,
          featureName: flag,
          projectId: 'default',
          environment: 'development',
          strategyName: 'flexibleRollout',
          parameters: { rollout },
        },
      ],
    });
    for (const rollout of BAD) {
      const res = await t.send('POST', '/api/admin/state/import', doc(rollout));
      expectError400(res, '/body/featureStrategies/0/parameters/rollout');
    }
    expect((await api(t).getFlag('default', flag)).statusCode).toBe(404);
    const ok = await t.send('POST', '/api/admin/state/import', doc('0'));
    expect(ok.statusCode, ok.body).toBe(202);
  });
});
