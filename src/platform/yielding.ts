import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long a loop over many items may hold the event loop before it lets other requests run: an
 * import or export of thousands of flags must not stop /health and every other request while it
 * works (issue 43). 10 ms of work, then a turn of the event loop (`setImmediate`: timers and I/O
 * waiting run first), costs a large loop a few per cent.
 */
export const SLICE_MS = 10;

/** How many items run between two looks at the clock (reading it is not free). */
const CHECK_EVERY = 64;

/**
 * A budget of work between two turns of the event loop: `pause()` yields once the current slice
 * has run SLICE_MS or longer, else returns at once (no promise is awaited then: cheap to call for
 * every item). One per loop or per request; not shared between concurrent requests.
 */
export class WorkSlices {
  private started = performance.now();
  private count = 0;

  /** Call between items (`items`: how many were done since the last call); yields when the slice is used up. */
  pause(items = 1): Promise<void> | undefined {
    this.count += items;
    if (this.count < CHECK_EVERY) return undefined;
    this.count = 0;
    if (performance.now() - this.started < SLICE_MS) return undefined;
    return this.yieldNow();
  }

  /** Yields at once (between steps that each take long) and starts a new slice. */
  async yieldNow(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

/** `items.map(fn)` in slices of SLICE_MS, yielding to the event loop between them. */
export async function mapInSlices<T, U>(
  items: readonly T[],
  fn: (item: T, index: number) => U,
  slices = new WorkSlices(),
): Promise<U[]> {
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i] as T, i);
    const pause = slices.pause();
    if (pause) await pause;
  }
  return out;
}
