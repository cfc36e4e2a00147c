import { describe, expect, it } from 'vitest';
import { KeyedBatches } from './keyed-batches.js';

/** A run that records its batches and waits until the test lets it finish. */
function recorder(fail?: (items: number[]) => boolean) {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<PromiseSettledResult<number>[]>((resolve, reject) => {
      releases.push(() =>
        fail?.(items)
          ? reject(new Error('refused'))
          : resolve(items.map((i) => ({ status: 'fulfilled', value: i * 10 }))),
      );
    });
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((r) => setImmediate(r));
    releases.shift()?.();
  };
  return { batches, run, releaseNext };
}

describe('KeyedBatches', () => {
  it('runs what arrived together at once, and what arrived during a run as the next batch', async () => {
    const r = recorder();
    const batches = new KeyedBatches(r.run);
    const first = [batches.submit('a', 1), batches.submit('a', 2)];
    await r.releaseNext();
    const later = [batches.submit('a', 3), batches.submit('a', 4), batches.submit('a', 5)];
    await r.releaseNext();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    // 3-5 arrived after the first batch had started: they waited for it and then went together.
    expect(r.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('runs different keys side by side and caps a batch at `most` items', async () => {
    const r = recorder();
    const batches = new KeyedBatches(r.run, 2);
    const a = [batches.submit('a', 1), batches.submit('a', 2), batches.submit('a', 3)];
    const b = batches.submit('b', 9);
    await r.releaseNext();
    await r.releaseNext();
    await r.releaseNext();
    expect(await Promise.all([...a, b])).toEqual([10, 20, 30, 90]);
    expect(r.batches).toEqual([[1, 2], [9], [3]]);
  });

  it('a run that throws fails its own items only, and the key takes work again', async () => {
    const r = recorder((items) => items.includes(2));
    const batches = new KeyedBatches(r.run);
    const failed = [batches.submit('a', 1), batches.submit('a', 2)];
    await r.releaseNext();
    await expect(failed[0]).rejects.toThrow('refused');
    await expect(failed[1]).rejects.toThrow('refused');
    const next = batches.submit('a', 3);
    await r.releaseNext();
    expect(await next).toBe(30);
  });

  it('settles each item as the run says, fulfilled or rejected', async () => {
    const batches = new KeyedBatches<number, number>(async (items) =>
      items.map((i) =>
        i % 2 ? { status: 'fulfilled', value: i } : { status: 'rejected', reason: new Error(`even ${i}`) },
      ),
    );
    const results = await Promise.allSettled([1, 2, 3].map((i) => batches.submit('k', i)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
