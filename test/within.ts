/**
 * Resolves once `check` holds, with the milliseconds it took; fails after `ms`. Waiting on a
 * condition the test can observe, not on a fixed time. `everyMs`: how often `check` runs.
 */
export async function within(
  ms: number,
  check: () => boolean | Promise<boolean>,
  everyMs = 10,
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Date.now() - started;
}
