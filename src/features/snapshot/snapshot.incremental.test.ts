import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { consumeEventIds, heldSession } from '../../../test/held-transaction.js';
import { prng } from '../../../test/prng.js';
import { Configuration, ConfigurationCache } from './snapshot.cache.js';
import { indexConfiguration } from './snapshot.input.js';
import { loadConfiguration } from './snapshot.store.js';

/**
 * The configuration applied change by change (only the flags the new events name are read) must
 * equal a full read at the same revision, after every kind of write the admin API offers.
 */
let t: TestApp;
let cache: ConfigurationCache;
beforeAll(async () => {
  t = await startTestApp();
  cache = new ConfigurationCache(t.database, 3_600_000);
});
afterAll(() => t.close());

const ENVIRONMENTS = ['development', 'production'];

async function expectEqualToFullRead(step: string) {
  const incremental = await cache.get({ fresh: true });
  const full = new Configuration(indexConfiguration(await loadConfiguration(t.database.db)));
  expect(incremental.revision, step).toBe(full.revision);
  expect(incremental.flags, step).toEqual(full.flags);
  for (const environment of ENVIRONMENTS) {
    expect(incremental.environment(environment).input, `${step} (${environment})`).toEqual(
      full.environment(environment).input,
    );
  }
}

describe('the incremental configuration', () => {
  it('equals a full read after each of 150 random admin writes', async () => {
    const rand = prng(42);
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)] as T;
    const a = api(t);
    const flags: string[] = [];
    const segments: number[] = [];
    const strategies = new Map<string, string[]>();
    const url = (flag: string) => `/api/admin/projects/default/features/${flag}`;
    await expectEqualToFullRead('start');
    const before = { ...cache.reads };
    const writes: (() => Promise<string>)[] = [
      async () => {
        const name = `f${flags.length}-${Math.floor(rand() * 1e6)}`;
        await a.createFlag('default', {
          name,
          description: 'd',
          tags: [{ type: 'simple', value: 'tagged' }],
        });
        flags.push(name);
        return `create ${name}`;
      },
      async () => {
        const flag = pick(flags);
        const env = pick(ENVIRONMENTS);
        const res = await t.send('POST', `${url(flag)}/environments/${env}/${rand() < 0.6 ? 'on' : 'off'}`);
        return `on/off ${flag} ${env} ${res.statusCode}`;
      },
      async () => {
        const flag = pick(flags);
        const env = pick(ENVIRONMENTS);
        const res = await t.send('POST', `${url(flag)}/environments/${env}/strategies`, {
          name: 'flexibleRollout',
          parameters: { rollout: String(Math.floor(rand() * 100)), stickiness: 'default', groupId: flag },
          constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }],
          segments: segments.length > 0 && rand() < 0.5 ? [pick(segments)] : [],
        });
        if (res.statusCode === 200)
          strategies.set(`${flag}|${env}`, [...(strategies.get(`${flag}|${env}`) ?? []), res.json().id]);
        return `add strategy ${flag} ${env} ${res.statusCode}`;
      },
      async () => {
        const [key, ids] = pick([...strategies.entries()].filter(([, list]) => list.length > 0)) ?? [];
        if (!key || !ids) return 'no strategy to delete';
        const [flag, env] = key.split('|') as [string, string];
        const id = ids.pop()!;
        const res = await t.send('DELETE', `${url(flag)}/environments/${env}/strategies/${id}`);
        return `delete strategy ${flag} ${env} ${res.statusCode}`;
      },
      async () => {
        const flag = pick(flags);
        const res = await t.send('PATCH', `${url(flag)}/environments/${pick(ENVIRONMENTS)}/variants`, [
          {
            op: 'add',
            path: '/-',
            value: {
              name: `v${Math.floor(rand() * 100)}`,
              weight: 0,
              weightType: 'variable',
              stickiness: 'default',
            },
          },
        ]);
        return `variants ${flag} ${res.statusCode}`;
      },
      async () => {
        const flag = pick(flags);
        const res = await a.updateFlag('default', flag, { description: `d${rand()}`, stale: rand() < 0.3 });
        return `update ${flag} ${res.statusCode}`;
      },
      async () => {
        const [child, parent] = [pick(flags), pick(flags)];
        const res = await t.send('POST', `${url(child)}/dependencies`, {
          feature: parent,
          enabled: rand() < 0.7,
        });
        return `depend ${child} on ${parent} ${res.statusCode}`;
      },
      async () => {
        const child = pick(flags);
        const res = await t.send('DELETE', `${url(child)}/dependencies`);
        return `drop dependencies of ${child} ${res.statusCode}`;
      },
      async () => {
        const flag = pick(flags);
        const archived = await t.send('DELETE', url(flag));
        if (archived.statusCode !== 202) return `archive ${flag} ${archived.statusCode}`;
        if (rand() < 0.5) {
          await t.send('POST', `/api/admin/archive/revive/${flag}`);
          return `archive and revive ${flag}`;
        }
        await t.send('DELETE', `/api/admin/archive/${flag}`);
        flags.splice(flags.indexOf(flag), 1);
        return `archive and delete ${flag}`;
      },
      async () => {
        const res = await t.send('POST', '/api/admin/segments', {
          name: `s${Math.floor(rand() * 1e9)}`,
          constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
        });
        if (res.statusCode === 201) segments.push(res.json().id);
        return `segment ${res.statusCode}`;
      },
    ];
    await writes[0]!();
    await writes[0]!();
    for (let step = 0; step < 150; step++) {
      const write = step % 25 === 24 ? writes[9]! : flags.length < 3 ? writes[0]! : pick(writes.slice(0, 9));
      const done = await write();
      // Some revisions are applied and never read: the environments are then made from one built
      // several revisions back (patched with every flag affected since).
      if (rand() < 0.4) await cache.get({ fresh: true });
      else await expectEqualToFullRead(`step ${step}: ${done}`);
    }
    await expectEqualToFullRead('after the last step');
    // Most steps were applied as changes, not by reading everything again.
    expect(cache.reads.incremental - before.incremental).toBeGreaterThan(100);
    expect(cache.reads.full - before.full).toBeGreaterThan(0);
  });
});

describe('a revision whose events are all outside the configuration', () => {
  it('is applied without reading flag rows (an API token created)', async () => {
    await expectEqualToFullRead('before the token');
    const res = await t.send('POST', '/api/admin/api-tokens', {
      tokenName: 'snapshot-token',
      type: 'client',
      environment: 'development',
      projects: ['default'],
    });
    expect(res.statusCode, res.body).toBe(201);
    await expectEqualToFullRead('after the token');
  });
});

describe('environments a change did not touch', () => {
  it('are carried over with what was derived from them; the touched one is rebuilt', async () => {
    const a = api(t);
    const name = `carry-${Date.now()}`;
    await a.createFlag('default', { name });
    const before = await cache.get({ fresh: true });
    const production = before.environment('production');
    const development = before.environment('development');
    const payload = production.memo('probe', () => ({ built: before.revision }));
    const on = await t.send(
      'POST',
      `/api/admin/projects/default/features/${name}/environments/development/on`,
    );
    expect(on.statusCode).toBe(200);
    const after = await cache.get({ fresh: true });
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(after.environment('production')).toBe(production);
    expect(after.environment('production').memo('probe', () => ({ built: after.revision }))).toBe(payload);
    expect(after.environment('development')).not.toBe(development);
    expect(after.environment('development').input.features.find((f) => f.name === name)?.enabled).toBe(true);
    // A change to the flag itself (not to one environment) touches every environment.
    await a.updateFlag('default', name, { description: 'changed' });
    const changed = await cache.get({ fresh: true });
    expect(changed.environment('production')).not.toBe(production);
  });

  it('keep the inputs of unchanged flags through revisions nobody read', async () => {
    const a = api(t);
    const [changing, still] = [`lend-a-${Date.now()}`, `lend-b-${Date.now()}`];
    await a.createFlag('default', { name: changing });
    await a.createFlag('default', { name: still });
    const read = await cache.get({ fresh: true });
    const inputOf = (config: Configuration, flag: string) =>
      config.environment('development').input.features.find((f) => f.name === flag);
    const kept = inputOf(read, still);
    // Two revisions in a row, the first never read: development is built again only at the second.
    for (const state of ['on', 'off']) {
      const res = await t.send(
        'POST',
        `/api/admin/projects/default/features/${changing}/environments/development/${state}`,
      );
      expect(res.statusCode).toBe(200);
      if (state === 'on') await cache.get({ fresh: true });
    }
    const later = await cache.get({ fresh: true });
    expect(later.revision).toBeGreaterThan(read.revision + 1);
    expect(inputOf(later, still)).toBe(kept);
    expect(inputOf(later, changing)).not.toBe(inputOf(read, changing));
    expect(inputOf(later, changing)?.enabled).toBe(false);
  });
});

describe.runIf(process.env.TEST_ENGINE === 'postgres')('a change that commits after a later one', () => {
  // 0: its event id is a gap within the window, found when its notification comes (no poll).
  // 2,500: rolled-back transactions (a trial import) took that many ids after it, so its id is
  // below any window of missing ids: the transaction it was in, kept as in progress at the read,
  // leads the revision poll (CONFIGURATION_POLL_MS) to it, and so does its notification.
  it.each([
    [0, 3_600_000],
    [2_500, 100],
    [2_500, 3_600_000],
  ])(
    'still reaches the configuration, %i ids consumed in between (poll every %i ms)',
    async (consumed, pollMs) => {
      const a = api(t);
      const late = `late-${consumed}-${Date.now()}`;
      const other = `other-${consumed}-${Date.now()}`;
      await a.createFlag('default', { name: late, description: 'before' });
      const watching = new ConfigurationCache(t.database, pollMs);
      await watching.start();
      try {
        await watching.get({ fresh: true });
        // Another connection takes an event id and holds its transaction open.
        const client = await heldSession(t);
        await client.query('BEGIN');
        await client.query(`UPDATE features SET description = 'after' WHERE name = $1`, [late]);
        await client.query(
          `INSERT INTO events (type, created_by, feature_name, project) VALUES ('feature-metadata-updated', 'test', $1, 'default')`,
          [late],
        );
        await consumeEventIds(t, consumed);
        // A later event commits first and is read.
        await a.createFlag('default', { name: other });
        expect((await watching.get({ fresh: true })).flag(other)).toBeDefined();
        expect((await watching.get()).flag(late)?.description).toBe('before');
        await client.query('COMMIT');
        await client.end();
        const started = Date.now();
        while ((await watching.get()).flag(late)?.description !== 'after' && Date.now() - started < 2000) {
          await new Promise((r) => setTimeout(r, 20));
        }
        expect((await watching.get()).flag(late)?.description).toBe('after');
      } finally {
        await watching.stop();
      }
    },
  );
});
