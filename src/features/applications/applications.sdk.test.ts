import type { AddressInfo } from 'node:net';
import { InMemStorageProvider, startUnleash, type Unleash } from 'unleash-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

/**
 * The real Node SDK (unleash-client) registers and sends metrics through the client API; what it
 * sent shows in the application overview (spec endpoint 10) and in the flag's metrics.
 */

let t: TestApp;
let sdk: Unleash | undefined;
const appName = uniqueName('sdk-app');
const flag = uniqueName('sdk-flag');

beforeAll(async () => {
  t = await startTestApp();
  await api(t).createFlag('default', { name: flag });
  expect(
    (await t.send('POST', `/api/admin/projects/default/features/${flag}/environments/development/on`))
      .statusCode,
  ).toBe(200);
  const token = await t.send('POST', '/api/admin/api-tokens', {
    tokenName: 'sdk-apps',
    type: 'client',
    environment: 'development',
    projects: ['default'],
  });
  expect(token.statusCode).toBe(201);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  sdk = await startUnleash({
    url: `http://127.0.0.1:${port}/api/`,
    appName,
    instanceId: 'sdk-instance-1',
    customHeaders: { Authorization: token.json().secret },
    refreshInterval: 100,
    metricsInterval: 200,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  // Its last poll finishes against the open server (see test/sdk-agreement.test.ts).
  await new Promise((resolve) => setTimeout(resolve, 500));
  await t.close();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > ms) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('shows what the SDK registered and reported in the overview and the flag metrics', async () => {
  const client = sdk as Unleash;
  for (let i = 0; i < 5; i++) expect(client.isEnabled(flag)).toBe(true);
  client.isEnabled('sdk-missing-flag');

  const overview = await until(
    async () => (await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).json(),
    (body) => body.environments?.[0]?.issues.missingFeatures.length > 0 && body.featureCount > 0,
  );
  expect(overview).toMatchObject({
    projects: ['default'],
    featureCount: 1,
    environments: [
      {
        name: 'development',
        instanceCount: 1,
        sdks: [expect.stringMatching(/^unleash-node-sdk:\d+\.\d+\.\d+/)],
        backendSdks: [expect.stringMatching(/^unleash-node-sdk:/)],
        frontendSdks: [],
        lastSeen: expect.any(String),
        issues: { missingFeatures: ['sdk-missing-flag'], outdatedSdks: [] },
      },
    ],
    issues: { missingStrategies: [] },
  });

  const usage = (await t.send('GET', `/api/admin/client-metrics/features/${flag}`)).json();
  expect(usage.seenApplications).toEqual([appName]);
  expect(usage.totalUsage).toEqual([{ environment: 'development', yes: 5, no: 0, variants: {} }]);

  const search = (await t.send('GET', `/api/admin/search/features?query=${flag}`)).json();
  expect(search.features).toHaveLength(1);
  expect(search.features[0].environments).toContainEqual(
    expect.objectContaining({ name: 'development', yes: 5, no: 0, lastSeenAt: expect.any(String) }),
  );

  const details = (await t.send('GET', `/api/admin/metrics/applications/${appName}`)).json();
  expect(details.instances).toEqual([
    expect.objectContaining({ instanceId: 'sdk-instance-1', environment: 'development', sdkType: 'backend' }),
  ]);
  expect(details.seenToggles.map((f: { name: string }) => f.name)).toEqual([flag]);
}, 30_000);
