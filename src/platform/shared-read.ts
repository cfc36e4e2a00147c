/**
 * A value read from the database that says what a reader may rely on (a change version, a
 * revision), shared by the readers that ask at about the same time.
 *
 * Every caller gets the result of a read that started after it called, so it sees everything that
 * committed before it asked (read-your-writes, on any instance), while callers that arrive
 * together or during one read cost one query between them, not one each: a caller that finds a
 * read running waits for the next one, which starts when the running one ends and serves everyone
 * who arrived meanwhile.
 */
export class SharedRead<T> {
  private running: Promise<T> | undefined;
  private next: Promise<T> | undefined;
  /** The read started in the current synchronous run, if any (cleared before other I/O runs). */
  private fresh: Promise<T> | undefined;
  /** How many reads were started (diagnostics, tests). */
  count = 0;

  constructor(private readonly read: () => Promise<T>) {}

  /** The value, from a read that started after this call. */
  after(): Promise<T> {
    // A read started in this same synchronous run (callers started together) is after us too.
    if (this.fresh) return this.fresh;
    if (!this.running) return this.start();
    // The running read may have started before this call: wait for the one after it. If the
    // running one fails (the database away), so do the callers waiting behind it: they fail
    // after one connection timeout, not after two.
    this.next ??= this.running.then(
      () => {
        this.next = undefined;
        return this.start();
      },
      (error: unknown) => {
        this.next = undefined;
        throw error;
      },
    );
    return this.next;
  }

  private start(): Promise<T> {
    this.count += 1;
    const running = this.read().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    this.fresh = running;
    queueMicrotask(() => {
      if (this.fresh === running) this.fresh = undefined;
    });
    return running;
  }
}
