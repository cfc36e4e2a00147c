import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, openTwoInstances, uniqueName } from '../../../test/harness.js';
import { buildApp } from '../../app.js';
import { testConfig } from '../../config.js';
import type { Database } from '../../platform/db/index.js';
import { ConfigurationCache } from './snapshot.cache.js';

/** Two instances on one database: a change made through one reaches the other's snapshot. */
let first: Database;
let second: Database;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ first, second, close } = await openTwoInstances());
});
afterAll(() => close());

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not within ${ms} ms`);
}

/**
 * Runs `check` with a cache on the second instance (started, polling every `pollMs`) and a way to
 * create a flag through an app on the first one; both are closed afterwards.
 */
async function acrossInstances(
  pollMs: number,
  check: (
    cache: ConfigurationCache,
    createFlag: (name: string) => Promise<void>,
    describeFlag: (name: string, description: string) => Promise<void>,
  ) => Promise<void>,
  database: Database = second,
) {
  const app = await buildApp({ database: first, config: testConfig(), now: () => new Date() });
  await app.ready();
  const cache = new ConfigurationCache(database, pollMs);
  await cache.start();
  const createFlag = async (name: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/admin/projects/default/features',
      headers: { authorization: ADMIN_TOKEN },
      payload: { name },
    });
    expect(res.statusCode).toBe(200);
  };
  const describeFlag = async (name: string, description: string) => {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/admin/projects/default/features/${name}`,
      headers: { authorization: ADMIN_TOKEN },
      payload: { description },
    });
    expect(res.statusCode).toBe(200);
  };
  try {
    await check(cache, createFlag, describeFlag);
  } finally {
    await cache.stop();
    await app.close();
  }
}

describe('ConfigurationCache', () => {
  it.each([
    ['NOTIFY alone (no poll)', 3_600_000],
    ['the revision poll', 200],
  ])('sees a flag created through another instance within a second via %s', async (_label, pollMs) => {
    await acrossInstances(pollMs, async (cache, createFlag) => {
      await cache.get();
      const name = uniqueName('shared');
      await createFlag(name);
      // Throws when the flag is not seen within the second.
      await waitFor(async () => (await cache.get()).flag(name) !== undefined, 1000);
    });
  });

  it('compiles each environment once per revision and keeps archived flags out', async () => {
    const cache = new ConfigurationCache(first, 3_600_000);
    const name = uniqueName('archived');
    await first.session(async (run) => {
      await run(`INSERT INTO features (name, project, archived_at) VALUES ($1, 'default', now())`, [name]);
      await run(
        `INSERT INTO events (type, created_by, feature_name) VALUES ('feature-archived', 'test', $1)`,
        [name],
      );
    });
    const config = await cache.get({ fresh: true });
    expect(config.flag(name)).toBeUndefined();
    expect(config.environment('development')).toBe(config.environment('development'));
    expect(await cache.get()).toBe(config);
  });

  it('peek answers at once while current, and not once a newer revision is known past the period', async () => {
    await acrossInstances(3_600_000, async (cache, createFlag) => {
      expect(cache.peek(200)).toBeUndefined(); // nothing read yet
      const before = await cache.get();
      expect(cache.peek(200)).toBe(before);
      const name = uniqueName('peeked');
      await createFlag(name);
      // The NOTIFY makes the newer revision known; a period of 0 ms no longer accepts the old one.
      await waitFor(async () => cache.peek(0) === undefined, 1000);
      const after = await cache.get({ within: 0 });
      expect(after.flag(name)).toBeDefined();
      expect(cache.peek(0)).toBe(after);
    });
  });

  it('gives a reader with a period the current configuration while the next one is read, never a wait', async () => {
    await acrossInstances(3_600_000, async (cache, createFlag) => {
      const before = await cache.get();
      const name = uniqueName('reloading');
      await createFlag(name);
      await waitFor(async () => cache.peek(0) === undefined, 1000);
      // A reader without a period starts the read of the newer revision.
      const reading = cache.get();
      // Meanwhile readers with a period are answered at once with what is there.
      expect(cache.peek(0)).toBe(before);
      let answered: unknown;
      void cache.get({ within: 0 }).then((config) => {
        answered = config;
      });
      await Promise.resolve();
      expect(answered).toBe(before);
      const after = await reading;
      expect(after.flag(name)).toBeDefined();
      expect(cache.peek(0)).toBe(after);
      expect(await cache.get({ within: 0 })).toBe(after);
    });
  });
});

describe('a reader with a period under a stream of writes', () => {
  it('takes the configuration it waited for, without reading again for revisions that came meanwhile', async () => {
    // The cache's change reads are held after the database answered them (a slow network): the
    // read's snapshot is taken, a newer revision commits and is announced, then the answer arrives.
    let armed = false;
    let held: (() => void) | undefined;
    const holding = second.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (armed && 'events' in (args.result.rows[0] ?? {})) {
          armed = false;
          await new Promise<void>((resolve) => {
            held = resolve;
          });
        }
        return args.result;
      },
    });
    await acrossInstances(
      3_600_000,
      async (cache, createFlag) => {
        await cache.get();
        const during = uniqueName('during');
        await createFlag(uniqueName('before'));
        await waitFor(async () => cache.peek(0) === undefined, 1000);
        await new Promise((r) => setTimeout(r, 60)); // past the reader's period of 50 ms
        armed = true;
        const reads = cache.reads.incremental;
        const reading = cache.get({ within: 50 });
        await waitFor(async () => held !== undefined, 2000);
        await createFlag(during);
        await new Promise((r) => setTimeout(r, 300)); // its NOTIFY reaches the cache
        held?.();
        const got = await reading;
        expect(cache.reads.incremental - reads).toBe(1);
        expect(got.flag(during)).toBeUndefined();
        // A reader without a period still gets the newest.
        expect((await cache.get()).flag(during)).toBeDefined();
      },
      { ...second, db: holding },
    );
  });
});

describe('an instance under a stream of writes', () => {
  it('polls instead of listening while the writes last, sees every change, and listens again after', async () => {
    // The cache's own safety-net poll is an hour: in listening mode only a NOTIFY brings a change.
    await acrossInstances(3_600_000, async (cache, createFlag, describeFlag) => {
      const names = Array.from({ length: 8 }, () => uniqueName('stream'));
      for (const name of names) await createFlag(name);
      await cache.get();
      expect(cache.learning).toBe('listening');
      // 64 writes (each its own statement and notification) from 8 writers at once: more than 20
      // notifications within a second.
      await Promise.all(
        names.map(async (name) => {
          for (let i = 0; i < 8; i++) await describeFlag(name, `change ${i}`);
        }),
      );
      await waitFor(async () => cache.peek(0) === undefined, 1000);
      if (second.engine !== 'postgres') {
        // PGlite's notifications wake no other process: it keeps listening.
        expect(cache.learning).toBe('listening');
        return;
      }
      expect(cache.learning).toBe('polling');
      const config = await cache.get();
      for (const name of names) expect(config.flag(name)?.description, name).toBe('change 7');
      // While the stream goes on (one writer, as fast as it goes), polling brings a change made
      // now, though no NOTIFY reaches the cache: `get` reads only a revision it knows of.
      let streaming = true;
      const stream = (async () => {
        for (let i = 0; streaming; i++) await describeFlag(names[0] as string, `streamed ${i}`);
      })();
      try {
        const whilePolling = uniqueName('polled');
        await createFlag(whilePolling);
        await waitFor(async () => (await cache.get()).flag(whilePolling) !== undefined, 1000);
        expect(cache.learning).toBe('polling');
      } finally {
        streaming = false;
        await stream;
      }
      // Two seconds without a stream: it listens again, and a NOTIFY brings the next change.
      await waitFor(async () => cache.learning === 'listening', 4000);
      const afterwards = uniqueName('notified');
      await createFlag(afterwards);
      await waitFor(async () => cache.peek(0) === undefined, 1000);
      expect((await cache.get()).flag(afterwards)).toBeDefined();
    });
  });
});
