import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * Issue 3's "done when": a script written for the Unleash admin API builds a full configuration
 * (projects, environments, flags, strategies with constraints and segments, strategy and
 * environment variants, tags, dependencies) through the Unleash paths and reads it back.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function call(
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: unknown,
  ok = [200, 201, 202, 204],
) {
  const res = await t.request({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (!ok.includes(res.statusCode)) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

describe('an Unleash admin script', () => {
  it('builds a full configuration and reads it back identically', async () => {
    const env = uniqueName('staging');
    const project = uniqueName('shop');
    const flag = `${project}-checkout`;
    const parent = `${project}-parent`;

    await call('POST', '/api/admin/environments', { name: env, type: 'test', sortOrder: 5 });
    await call('POST', '/api/admin/projects', { id: project, name: 'Shop', description: 'The shop' });
    // A new project already has every enabled environment (as in Unleash): adding it again is a 409.
    await call('POST', `/api/admin/projects/${project}/environments`, { environment: env }, [200, 409]);
    const segment = await call('POST', '/api/admin/segments', {
      name: uniqueName('beta'),
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }],
    });
    await call('POST', '/api/admin/context', {
      name: 'region',
      legalValues: [{ value: 'eu' }, { value: 'us' }],
    });
    await call('POST', '/api/admin/tag-types', { name: 'team', description: 'Owning team' });

    await call('POST', `/api/admin/projects/${project}/features`, { name: parent });
    await call('POST', `/api/admin/projects/${project}/features`, { name: flag, type: 'experiment' });
    const strategy = await call(
      'POST',
      `/api/admin/projects/${project}/features/${flag}/environments/${env}/strategies`,
      {
        name: 'flexibleRollout',
        parameters: { rollout: '100', stickiness: 'default', groupId: flag },
        constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
        segments: [segment.id],
        variants: [
          {
            name: 'blue',
            weight: 500,
            weightType: 'variable',
            stickiness: 'default',
            payload: { type: 'string', value: 'b' },
          },
          { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
        ],
      },
    );
    await call('PUT', `/api/admin/projects/${project}/features/${flag}/environments/${env}/variants`, [
      { name: 'x', weight: 1000, weightType: 'variable', stickiness: 'default' },
      { name: 'y', weight: 200, weightType: 'fix', stickiness: 'default' },
    ]);
    await call('POST', `/api/admin/features/${flag}/tags`, { type: 'team', value: 'payments' });
    await call('POST', `/api/admin/projects/${project}/features/${flag}/dependencies`, {
      feature: parent,
      enabled: true,
    });
    await call('POST', `/api/admin/projects/${project}/features/${parent}/environments/${env}/on`);
    await call('POST', `/api/admin/projects/${project}/features/${flag}/environments/${env}/on`);

    const read = await call('GET', `/api/admin/projects/${project}/features/${flag}`);
    expect(read).toMatchObject({
      name: flag,
      type: 'experiment',
      project,
      dependencies: [{ feature: parent, enabled: true }],
    });
    expect(read.tags).toEqual([{ type: 'team', value: 'payments' }]);
    const staging = read.environments.find((e: { name: string }) => e.name === env);
    expect(staging).toMatchObject({ enabled: true, hasStrategies: true, variantCount: 2 });
    expect(staging.variants.map((v: { name: string; weight: number }) => [v.name, v.weight])).toEqual([
      ['x', 800],
      ['y', 200],
    ]);
    expect(staging.strategies).toEqual([
      expect.objectContaining({
        id: strategy.id,
        name: 'flexibleRollout',
        parameters: { rollout: '100', stickiness: 'default', groupId: flag },
        constraints: [expect.objectContaining({ contextName: 'region', operator: 'IN', values: ['eu'] })],
        segments: [segment.id],
        variants: [
          expect.objectContaining({ name: 'blue', weight: 500, payload: { type: 'string', value: 'b' } }),
          expect.objectContaining({ name: 'green', weight: 500 }),
        ],
      }),
    ]);
    const parentRead = await call('GET', `/api/admin/projects/${project}/features/${parent}`);
    expect(parentRead.children).toEqual([flag]);

    // SDKs see the same configuration through a client token created by the script.
    const token = await call('POST', '/api/admin/api-tokens', {
      tokenName: 'shop-sdk',
      type: 'client',
      environment: env,
      projects: [project],
    });
    const client = await t.request({
      method: 'GET',
      url: '/api/client/features',
      headers: { authorization: token.secret, 'unleash-client-spec': '5.0.0' },
    });
    expect(client.statusCode).toBe(200);
    const served = client.json().features.find((f: { name: string }) => f.name === flag);
    expect(served).toMatchObject({ enabled: true, dependencies: [{ feature: parent, enabled: true }] });
    expect(served.strategies[0]).toMatchObject({ name: 'flexibleRollout', segments: [segment.id] });

    // And the playground evaluates it: u1 in the EU is in the segment and gets a strategy variant.
    const played = await call('POST', '/api/admin/playground', {
      environment: env,
      projects: [project],
      context: { appName: 'shop', userId: 'u1', properties: { region: 'eu' } },
    });
    const result = played.features.find((f: { name: string }) => f.name === flag);
    expect(result).toMatchObject({ isEnabled: true, hasUnsatisfiedDependency: false });
    expect(['blue', 'green']).toContain(result.variant.name);
  });
});
