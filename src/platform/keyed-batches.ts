/**
 * Work on one key (a flag) done one run at a time, where everything that arrived for the key
 * while a run was in flight goes into the next run, together.
 *
 * A caller that finds no run for its key starts one on the next turn of the event loop
 * (setImmediate), with whoever else asked for the key by then. Callers that arrive during a run
 * wait for it to end and then share the next run, up to `most` of them in arrival order. This is
 * how writers of one flag share one statement instead of queueing one by one on its row lock
 * (flags.service.ts): the database does the row's work once for the batch. `run` settles each
 * item on its own; a run that throws fails the items it was given.
 */
export class KeyedBatches<I, R> {
  /** A key is here while a run for it is in flight; its array holds the items that wait. */
  private readonly waiting = new Map<string, Waiter<I, R>[]>();

  constructor(
    private readonly run: (items: I[]) => Promise<PromiseSettledResult<R>[]>,
    private readonly most = 64,
  ) {}

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiter = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(waiter);
        return;
      }
      this.waiting.set(key, [waiter]);
      // The first run starts after the I/O already received (setImmediate): on an engine that
      // blocks the thread while it runs (PGlite), the writers whose requests came in with this
      // one would otherwise only be read after the run.
      setImmediate(() => void this.drain(key));
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const batch = (this.waiting.get(key) ?? []).splice(0, this.most);
      try {
        const results = await this.run(batch.map((w) => w.item));
        batch.forEach((w, at) => {
          const result = results[at];
          if (result?.status === 'fulfilled') w.resolve(result.value);
          else w.reject(result ? result.reason : new Error('no result for a batched item'));
        });
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
      if ((this.waiting.get(key) ?? []).length === 0) {
        this.waiting.delete(key);
        return;
      }
    }
  }
}

interface Waiter<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}

/** A KeyedBatches per owner (a database), made on first use; `run` gets the owner too. */
export function batchesPer<O extends object, I, R>(
  run: (owner: O, items: I[]) => Promise<PromiseSettledResult<R>[]>,
): (owner: O) => KeyedBatches<I, R> {
  const made = new WeakMap<O, KeyedBatches<I, R>>();
  return (owner) => {
    let batches = made.get(owner);
    if (!batches) {
      batches = new KeyedBatches((items) => run(owner, items));
      made.set(owner, batches);
    }
    return batches;
  };
}
