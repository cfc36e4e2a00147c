import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

/** A version source whose probes the test answers by hand, to control their order. */
function manualProbe() {
  const pending: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  return {
    probe: () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject })),
    pending,
  };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('ReadCache', () => {
  it('a read that arrives while a probe runs waits for a probe that starts after it', async () => {
    const p = manualProbe();
    const cache = new ReadCache(p.probe);
    const early = cache.version();
    const sameRun = cache.version(); // the same synchronous run (one request's reads): shares it
    await tick(); // other I/O runs now: later reads cannot use the probe already running
    const late1 = cache.version();
    const late2 = cache.version();
    await tick();
    expect(p.pending).toHaveLength(1); // the late reads share one probe, started later
    p.pending[0]?.resolve('1');
    expect(await early).toBe('1');
    expect(await sameRun).toBe('1');
    await tick();
    expect(p.pending).toHaveLength(2);
    p.pending[1]?.resolve('2');
    expect([await late1, await late2]).toEqual(['2', '2']);
  });

  it('reads waiting behind a probe that fails fail with it (one timeout, not two, when the database is away)', async () => {
    const p = manualProbe();
    const cache = new ReadCache(p.probe);
    const early = cache.version();
    await tick();
    const late = cache.version();
    await tick();
    p.pending[0]?.reject(new Error('database away'));
    await expect(early).rejects.toThrow('database away');
    await expect(late).rejects.toThrow('database away');
    await tick();
    expect(p.pending).toHaveLength(1); // no second probe was started for the waiting read
    // Once the database answers again, the next read probes afresh.
    const after = cache.version();
    await tick();
    p.pending[1]?.resolve('3');
    expect(await after).toBe('3');
  });

  it('the reads of one scope share one probe', async () => {
    let version = 1;
    const cache = new ReadCache(async () => String(version));
    const request = {};
    const view = cache.of(request);
    expect(await view.read('a', async () => 'a1')).toBe('a1');
    version = 2; // committed after the request's probe: its later reads keep the version they have
    expect(await view.read('b', async () => 'b1')).toBe('b1');
    expect(await cache.of(request).read('a', async () => 'a2')).toBe('a1'); // a new view, same scope
    const timed = await view.readTimed('t', 5, async () => ({ value: 't1', from: 0, until: 10 }));
    expect(timed.value).toBe('t1');
    expect(cache.stats.probes).toBe(1);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 3 });
  });

  it('scopes that follow each other probe separately', async () => {
    const p = manualProbe();
    const cache = new ReadCache(p.probe);
    const first = cache.of({}).read('k', async () => 'first');
    await tick();
    expect(p.pending).toHaveLength(1);
    p.pending[0]?.resolve('1');
    expect(await first).toBe('first');
    const second = cache.of({}).read('k', async () => 'second');
    await tick();
    expect(p.pending).toHaveLength(2); // its own probe: the first one finished before it arrived
    p.pending[1]?.resolve('2');
    expect(await second).toBe('second');
    expect(cache.stats.probes).toBe(2);
  });

  it('a scope that arrives while a probe runs waits for the next one, as unscoped reads do', async () => {
    const p = manualProbe();
    const cache = new ReadCache(p.probe);
    const early = cache.read('k', async () => 'early');
    await tick();
    const scoped = cache.of({}).read('k', async () => 'scoped');
    const unscoped = cache.read('k', async () => 'unscoped');
    await tick();
    expect(p.pending).toHaveLength(1);
    p.pending[0]?.resolve('1');
    expect(await early).toBe('early');
    await tick();
    expect(p.pending).toHaveLength(2); // one later probe for both reads that arrived during the first
    p.pending[1]?.resolve('2');
    expect(await scoped).toBe('scoped');
    expect(await unscoped).toBe('unscoped');
    expect(cache.stats.probes).toBe(2);
  });

  it('unscoped reads each probe after they arrive', async () => {
    let version = 1;
    const cache = new ReadCache(async () => String(version));
    expect(await cache.read('k', async () => 'v1')).toBe('v1');
    version = 2;
    expect(await cache.read('k', async () => 'v2')).toBe('v2');
    expect(cache.stats.probes).toBe(2);
  });

  it('builds once per version and again when the version moves', async () => {
    let version = 1;
    let builds = 0;
    const cache = new ReadCache(async () => String(version));
    const read = () => cache.read('k', async () => ++builds);
    expect(await read()).toBe(1);
    expect(await read()).toBe(1);
    version = 2;
    expect(await read()).toBe(2);
    expect(builds).toBe(2);
  });

  it('keeps no failed build and recovers from a failed probe', async () => {
    let fail = true;
    const cache = new ReadCache(async () => {
      if (fail) throw new Error('database away');
      return '1';
    });
    await expect(cache.read('k', async () => 1)).rejects.toThrow('database away');
    fail = false;
    await expect(cache.read('k', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await cache.read('k', async () => 2)).toBe(2);
  });

  it('verify: a value that changed without a new version fails the read, and values are frozen', async () => {
    let value = { n: 1 };
    const cache = new ReadCache(async () => '1', { verify: true });
    const first = await cache.read('k', async () => value);
    expect(() => {
      (first as { n: number }).n = 5;
    }).toThrow(TypeError);
    value = { n: 2 };
    await expect(cache.read('k', async () => value)).rejects.toThrow(/changed without a new change version/);
  });
});
