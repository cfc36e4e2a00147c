import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { buildApp } from '../../app.js';
import { testConfig } from '../../config.js';

const BATCH_MS = 4000;

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp({ config: { METRICS_BATCH_MS: BATCH_MS } });
  token = await configSql(t).addToken('client', ['*'], 'development');
});
afterAll(() => t.close());

const report = (appName: string, instanceId: string, toggles: Record<string, unknown>, app = t.app) => {
  const start = new Date().toISOString();
  return app.inject({
    method: 'POST',
    url: '/api/client/metrics',
    headers: { authorization: token },
    payload: { appName, instanceId, bucket: { start, stop: start, toggles } },
  });
};
const totals = async (flag: string) => {
  const res = await t.send('GET', `/api/admin/client-metrics/features/${flag}`);
  expect(res.statusCode).toBe(200);
  return res.json().totalUsage;
};
const instances = async (appName: string) =>
  (await t.send('GET', `/api/admin/metrics/instances/${appName}/environment/development`))
    .json()
    .instances.map((i: { instanceId: string }) => i.instanceId)
    .sort();

describe('metrics intake in batches (METRICS_BATCH_MS)', () => {
  it('answers at once and writes the sum of all reports within the interval, instances and last-seen times with it', async () => {
    const flag = uniqueName('batched-flag');
    const ghost = uniqueName('batched-ghost');
    await api(t).createFlag('default', { name: flag });
    const appName = uniqueName('batched-app');
    const ids = Array.from({ length: 20 }, (_, i) => `pod-${String(i).padStart(2, '0')}`);
    for (const id of ids) {
      const res = await report(appName, id, {
        [flag]: { yes: 2, no: 1, variants: { blue: 2 } },
        [ghost]: { yes: 1, no: 0 },
      });
      expect(res.statusCode).toBe(202);
    }
    // Nothing is written before the interval has passed.
    expect(await totals(flag)).toEqual([]);
    expect(await instances(appName)).toEqual([]);

    await expect
      .poll(() => totals(flag), { timeout: BATCH_MS * 3, interval: 250 })
      .toEqual([{ environment: 'development', yes: 40, no: 20, variants: { blue: 40 } }]);
    // Instances that report metrics are seen, registered or not.
    expect(await instances(appName)).toEqual(ids);
    const unknown = (await t.send('GET', '/api/admin/metrics/unknown-flags')).json().unknownFlags;
    expect(unknown.map((u: { name: string }) => u.name)).toContain(ghost);
    const seen = await api(t).getFlag('default', flag);
    expect(seen.json().lastSeenAt).toEqual(expect.any(String));
  });

  it('writes registrations with the batch: nothing per request, all of an interval together', async () => {
    const appName = uniqueName('batched-reg');
    const ids = Array.from({ length: 10 }, (_, i) => `pod-${i}`);
    for (const instanceId of ids) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/client/register',
        headers: { authorization: token },
        payload: { appName, instanceId, sdkVersion: 'unleash-client-node:6.12.0', strategies: ['default'] },
      });
      expect(res.statusCode).toBe(202);
    }
    // Not written when answered: one write per interval, whatever the number of SDKs.
    expect((await t.send('GET', `/api/admin/metrics/applications/${appName}`)).statusCode).toBe(404);
    await expect.poll(() => instances(appName), { timeout: BATCH_MS * 3, interval: 250 }).toEqual(ids);
    const application = (await t.send('GET', `/api/admin/metrics/applications/${appName}`)).json();
    expect(application.strategies.map((s: { name: string }) => s.name)).toEqual(['default']);
  });

  it('writes what is pending when the app closes', async () => {
    const flag = uniqueName('closing-flag');
    await api(t).createFlag('default', { name: flag });
    const other = await buildApp({
      database: t.database,
      config: testConfig({ METRICS_BATCH_MS: 60_000 }),
      now: () => new Date(),
    });
    await other.ready();
    expect(
      (await report(uniqueName('closing-app'), 'pod', { [flag]: { yes: 1, no: 4 } }, other)).statusCode,
    ).toBe(202);
    expect(await totals(flag)).toEqual([]);
    await other.close();
    expect(await totals(flag)).toEqual([{ environment: 'development', yes: 1, no: 4, variants: {} }]);
  });
});
