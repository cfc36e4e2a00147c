import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { type Config, testConfig } from '../../config.js';
import { JOB_LEASES, takeJobLease, transaction } from '../../platform/db/index.js';
import { deleteExpiredClientReports } from './index.js';

// The service's clock, set by the tests: null follows the real time.
let clock: number | null = null;
const now = () => new Date(clock ?? Date.now());
const HOUR = 3_600_000;
const RETENTION = { CLIENT_INSTANCE_RETENTION_HOURS: 3, METRICS_RETENTION_HOURS: 3 };

let t: TestApp;
let token: string;
const flag = uniqueName('kept-flag');
beforeAll(async () => {
  t = await startTestApp({ now, config: RETENTION });
  await api(t).createFlag('default', { name: flag });
  token = await configSql(t).addToken('client', ['default'], 'development');
});
afterAll(() => t.close());

const runJob = () => deleteExpiredClientReports({ database: t.database, now, config: testConfig(RETENTION) });
const runJobWith = (overrides: Partial<Config>) =>
  deleteExpiredClientReports({
    database: t.database,
    now,
    config: testConfig({ ...RETENTION, ...overrides }),
  });

/** Registers an instance and reports one known and one unknown flag, at the clock's time. */
async function report(appName: string, instanceId: string, unknown: string) {
  const register = await t.send(
    'POST',
    '/api/client/register',
    { appName, instanceId, sdkVersion: 'unleash-client-node:6.1.0', strategies: ['default'] },
    { authorization: token },
  );
  expect(register.statusCode).toBe(202);
  const start = now().toISOString();
  const toggles = { [flag]: { yes: 1, no: 0, variants: { blue: 1 } }, [unknown]: { yes: 0, no: 1 } };
  const metrics = await t.send(
    'POST',
    '/api/client/metrics',
    { appName, instanceId, bucket: { start, stop: start, toggles } },
    { authorization: token },
  );
  expect(metrics.statusCode).toBe(202);
}

const instanceIds = async (appName: string) => {
  const res = await t.send('GET', `/api/admin/metrics/applications/${appName}`);
  expect(res.statusCode).toBe(200);
  return res.json().instances.map((i: { instanceId: string }) => i.instanceId);
};
const metricHours = async () => {
  const res = await t.send('GET', `/api/admin/client-metrics/features/${flag}/raw`);
  expect(res.statusCode).toBe(200);
  return res.json().data.map((d: { timestamp: string; variants: object }) => [d.timestamp, d.variants]);
};
const unknownNames = async () =>
  (await t.send('GET', '/api/admin/metrics/unknown-flags'))
    .json()
    .unknownFlags.map((u: { name: string }) => u.name);

const hourOf = (ms: number) => new Date(ms - (ms % HOUR)).toISOString();

describe('the client data retention job', () => {
  it('deletes instances, hourly metrics and unknown names past their retention, and keeps recent ones', async () => {
    const appName = uniqueName('retained-app');
    const oldGhost = uniqueName('old-ghost');
    const newGhost = uniqueName('new-ghost');
    const fiveHoursAgo = Date.now() - 5 * HOUR;
    clock = fiveHoursAgo;
    await report(appName, 'old-instance', oldGhost);
    clock = null;
    await report(appName, 'new-instance', newGhost);

    expect(await instanceIds(appName)).toEqual(['new-instance', 'old-instance']);
    expect(await metricHours()).toEqual([
      [hourOf(fiveHoursAgo), { blue: 1 }],
      [hourOf(Date.now()), { blue: 1 }],
    ]);
    expect(await unknownNames()).toEqual(expect.arrayContaining([oldGhost, newGhost]));

    expect(await runJob()).not.toBeNull();

    expect(await instanceIds(appName)).toEqual(['new-instance']);
    expect(await metricHours()).toEqual([[hourOf(Date.now()), { blue: 1 }]]);
    const unknown = await unknownNames();
    expect(unknown).toContain(newGhost);
    expect(unknown).not.toContain(oldGhost);
    // The application itself stays, as in Unleash.
    expect((await t.send('GET', `/api/admin/metrics/applications/${appName}/overview`)).statusCode).toBe(200);
  });

  it('deletes what the clock has left behind when time moves on', async () => {
    const appName = uniqueName('aging-app');
    await report(appName, 'only-instance', uniqueName('ghost'));
    clock = Date.now() + 4 * HOUR;
    try {
      await runJob();
    } finally {
      clock = null;
    }
    expect(await instanceIds(appName)).toEqual([]);
  });

  it('deletes events past EVENT_RETENTION_DAYS, keeps recent ones and the newest, and keeps counts right', async () => {
    const old = uniqueName('aged-flag');
    const recent = uniqueName('recent-flag');
    await api(t).createFlag('default', { name: old });
    await api(t).createFlag('default', { name: recent });
    const history = async (name: string) =>
      (await t.send('GET', `/api/admin/events/${name}`)).json().events.map((e: { type: string }) => e.type);
    const total = async () => (await t.send('GET', '/api/admin/events')).json().totalEvents as number;
    // Ten days old: the events of the first flag only (the database sets created_at).
    await t.database.session((run) =>
      run(`UPDATE events SET created_at = now() - interval '10 days' WHERE feature_name = $1`, [old]),
    );
    const before = await total();
    expect(before).toBe(await api(t).count('events'));
    expect(await history(old)).toEqual(['feature-created']);

    // 0, the default, keeps every event, however old.
    expect(testConfig().EVENT_RETENTION_DAYS).toBe(0);
    expect(await runJobWith({ EVENT_RETENTION_DAYS: 0 })).toMatchObject({ events: 0 });
    expect(await total()).toBe(before);

    // Seven days: the ten-day-old events go; the admin reads (cached per change version) see it.
    expect(await runJobWith({ EVENT_RETENTION_DAYS: 7 })).toMatchObject({ events: 1 });
    expect(await history(old)).toEqual([]);
    expect(await history(recent)).toEqual(['feature-created']);
    expect(await total()).toBe(before - 1);
    expect(await total()).toBe(await api(t).count('events'));

    // Everything old: all but the newest event go (its id is the configuration's revision).
    const newest = (await t.send('GET', '/api/admin/events')).json().events[0].id;
    await t.database.session((run) => run(`UPDATE events SET created_at = now() - interval '30 days'`));
    await runJobWith({ EVENT_RETENTION_DAYS: 7 });
    const left = (await t.send('GET', '/api/admin/events')).json();
    expect(left.events.map((e: { id: number }) => e.id)).toEqual([newest]);
    expect(left.totalEvents).toBe(1);
    // And the service goes on: a new change is an event after it, and SDKs see the flags.
    await api(t).createFlag('default', { name: uniqueName('after-retention') });
    expect(await total()).toBe(2);
    const client = await t.send('GET', '/api/client/features', undefined, { authorization: token });
    expect(client.statusCode).toBe(200);
    expect(client.json().features.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining([old, recent]),
    );
  });

  it.runIf(process.env.TEST_ENGINE === 'postgres')(
    'skips a round while another instance holds the lease',
    async () => {
      const appName = uniqueName('leased-app');
      await report(appName, 'leased-instance', uniqueName('ghost'));
      clock = Date.now() + 4 * HOUR;
      try {
        let release: () => void = () => {};
        let held: () => void = () => {};
        const holding = new Promise<void>((r) => {
          held = r;
        });
        const holder = transaction(t.database.db, async (tx) => {
          await takeJobLease(tx, JOB_LEASES.clientDataRetention);
          held();
          await new Promise<void>((r) => {
            release = r;
          });
        });
        await holding;
        expect(await runJob()).toBeNull();
        release();
        await holder;
        expect(await instanceIds(appName)).toEqual(['leased-instance']);
      } finally {
        clock = null;
      }
    },
  );
});
