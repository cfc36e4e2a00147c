/**
 * Runs `round` every `intervalMs` (and once at once when `immediately`) until the returned function
 * is called; that aborts the signal handed to the round in progress and resolves when it is over.
 * Rounds never overlap (a tick that finds one running is skipped); a failed round is logged and
 * the next one tries again. The timer does not keep the process alive.
 */
export function repeatEvery(
  intervalMs: number,
  round: (signal: AbortSignal) => Promise<unknown>,
  log: { error: (obj: unknown, msg: string) => void },
  what: string,
  immediately = true,
): () => Promise<void> {
  const shutdown = new AbortController();
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = round(shutdown.signal)
      .catch((error) => log.error({ err: error }, `${what} failed`))
      .finally(() => {
        running = undefined;
      });
  };
  if (immediately) tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    shutdown.abort();
    await running;
  };
}
