import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/platform/db/index.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * PUTs of one flag that arrive while another PUT of it runs share one statement (flags.service.ts,
 * batchedUpdates). What a writer sees must not change: each PUT answered on its own, each with
 * its own events in the order applied, each answer showing its change (or a later one).
 *
 * To make the PUTs arrive together every time, the test holds the flag's row in a transaction of
 * its own (PostgreSQL: the first PUT waits for the row lock; PGlite: for the one connection), sends
 * the PUTs, lets them all arrive, then lets go: the first runs alone, the others after it, together.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const flagUrl = (flag: string) => `/api/admin/projects/default/features/${flag}`;

interface Event {
  id: number;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  preData: Record<string, unknown>;
  tags: { type: string; value: string }[];
}

async function newFlag(): Promise<string> {
  const name = uniqueName('batched');
  const res = await t.send('POST', '/api/admin/projects/default/features', { name, description: 'start' });
  expect(res.statusCode).toBe(200);
  return name;
}

/**
 * Sends the PUTs while the flag's row is held (by a transaction that first runs `holder`, as
 * another writer of the flag would), then commits; answers in the order sent.
 */
async function putWhileHeld(
  flag: string,
  bodies: Record<string, unknown>[],
  holder: (tx: Db) => Promise<void> = async () => {},
) {
  let answers: Promise<{ statusCode: number; json: () => Record<string, unknown> }[]> | undefined;
  await t.database.db.transaction().execute(async (tx) => {
    await tx.selectFrom('features').select('name').where('name', '=', flag).forUpdate().execute();
    await holder(tx);
    answers = Promise.all(bodies.map((body) => t.send('PUT', flagUrl(flag), body)));
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  return (await answers) ?? [];
}

/** The flag's events, oldest first. */
async function eventsOf(flag: string): Promise<Event[]> {
  const res = await t.send('GET', `/api/admin/events/${flag}`);
  return [...(res.json().events as Event[])].sort((a, b) => a.id - b.id);
}

describe('PUTs of one flag sent together', () => {
  it('each is answered, records its own events in order, and its answer shows its change', async () => {
    const flag = await newFlag();
    const bodies = Array.from({ length: 8 }, (_, i) => ({
      description: `change ${i}`,
      stale: i % 2 === 1,
      ...(i === 5 && { type: 'experiment' }),
    }));
    const answers = await putWhileHeld(flag, bodies);
    expect(answers.map((a) => a.statusCode)).toEqual(bodies.map(() => 200));

    const events = await eventsOf(flag);
    const updates = events.filter((e) => e.type === 'feature-metadata-updated');
    // One per PUT, in the order they were applied, each starting where the one before ended.
    expect(updates).toHaveLength(8);
    const order = updates.map((e) => Number(String(e.data.description).split(' ')[1]));
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(updates[0]?.preData).toMatchObject({ description: 'start', type: 'release' });
    for (let i = 1; i < updates.length; i++) expect(updates[i]?.preData).toEqual(updates[i - 1]?.data);
    // Once the experiment type is set it stays: the PUTs applied after it sent no type.
    updates.forEach((e, at) => {
      expect(e.data.type).toBe(at >= order.indexOf(5) ? 'experiment' : 'release');
    });

    // Staleness flips with (nearly) every PUT: each flip is its own event, chained the same way.
    const stale = events.filter((e) => e.type.startsWith('feature-stale-'));
    let was = false;
    for (const n of order) {
      const now = n % 2 === 1;
      if (now === was) continue;
      const e = stale.shift();
      expect(e).toMatchObject({ type: now ? 'feature-stale-on' : 'feature-stale-off' });
      expect(e?.data).toEqual({ stale: now });
      expect(e?.preData).toEqual({ stale: was });
      was = now;
    }
    expect(stale).toEqual([]);

    // Each answer shows its own change or one applied after it.
    answers.forEach((answer, i) => {
      const shown = Number(String(answer.json().description).split(' ')[1]);
      expect(order.indexOf(shown)).toBeGreaterThanOrEqual(order.indexOf(i));
    });
    const last = updates.at(-1)?.data;
    const flagNow = (await t.send('GET', flagUrl(flag))).json();
    expect(flagNow).toMatchObject({
      description: last?.description,
      type: last?.type,
      stale: order.at(-1)! % 2 === 1,
    });

    // The PUTs that waited were applied by one statement: their events share its time. (Without
    // that, this test would pass through one-by-one writes and say nothing about the batch.)
    const times = new Set(updates.map((e) => e.createdAt));
    expect(times.size).toBeLessThan(updates.length);
  });

  it('a change the database refuses fails alone; the others are applied with their events', async () => {
    const flag = await newFlag();
    // A NUL character passes the body's schema; the database refuses it (400, nothing changes).
    const bodies = ['first', 'second', 'bad\u0000text', 'fourth', 'fifth'].map((description) => ({
      description,
    }));
    const answers = await putWhileHeld(flag, bodies);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 400, 200, 200]);
    expect(answers[2]?.json()).toMatchObject({ name: 'ValidationError' });

    const updates = (await eventsOf(flag)).filter((e) => e.type === 'feature-metadata-updated');
    expect(updates.map((e) => String(e.data.description)).sort()).toEqual([
      'fifth',
      'first',
      'fourth',
      'second',
    ]);
    for (let i = 1; i < updates.length; i++) expect(updates[i]?.preData).toEqual(updates[i - 1]?.data);
    const flagNow = (await t.send('GET', flagUrl(flag))).json();
    expect(flagNow.description).toBe(updates.at(-1)?.data.description);
  });

  it("records the flag's tags as the writer that held it left them", async () => {
    // The holder tags the flag; the PUT arrives before it commits. Its event carries the tag (on
    // PostgreSQL the PUT's statement began before the commit: it must not record what it read
    // then, the flag without the tag).
    const flag = await newFlag();
    const [answer] = await putWhileHeld(flag, [{ description: 'after the tag' }], async (tx) => {
      await tx
        .insertInto('tags')
        .values({ type: 'simple', value: 'held' })
        .onConflict((oc) => oc.doNothing())
        .execute();
      await tx
        .insertInto('feature_tag')
        .values({ feature_name: flag, tag_type: 'simple', tag_value: 'held' })
        .execute();
    });
    expect(answer?.statusCode).toBe(200);
    const update = (await eventsOf(flag)).find((e) => e.type === 'feature-metadata-updated');
    expect(update).toMatchObject({ data: { description: 'after the tag' } });
    expect(update?.tags).toEqual([{ type: 'simple', value: 'held' }]);
  });

  // PostgreSQL only: on PGlite the held transaction keeps the one connection from everyone.
  it.runIf(process.env.TEST_ENGINE === 'postgres')(
    'PUTs of different flags are not held by each other',
    async () => {
      const held = await newFlag();
      const free = await newFlag();
      let waiting: Promise<{ statusCode: number }> | undefined;
      const freeAnswer = await t.database.db.transaction().execute(async (tx) => {
        await tx.selectFrom('features').select('name').where('name', '=', held).forUpdate().execute();
        waiting = t.send('PUT', flagUrl(held), { description: 'waits' });
        await new Promise((resolve) => setTimeout(resolve, 50));
        return t.send('PUT', flagUrl(free), { description: 'goes' });
      });
      expect(freeAnswer.statusCode).toBe(200);
      expect(freeAnswer.json().description).toBe('goes');
      expect((await waiting)?.statusCode).toBe(200);
    },
  );
});
