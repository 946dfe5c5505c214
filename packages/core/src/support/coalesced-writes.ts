/**
 * Items written in batches: the items of one event-loop turn go into one `write` (scheduled with
 * `setImmediate`), and at most one `write` is in flight: while it runs, the next batch waits and
 * grows (up to `maxBatch` items, then another batch starts behind it). So a burst costs one
 * write per batch instead of one per item. Used by the audit log's and the activity log's
 * recorders.
 */
export interface CoalescedWrites<T> {
  /** Adds `item` to the open batch; answers the promise that settles once that batch's write did. */
  add(item: T): Promise<void>;
  /** Resolves once every item added so far is written, or its write failed. */
  flushed(): Promise<void>;
}

/** Items waiting for their `write`, and the promise that settles once it did. */
interface Batch<T> {
  items: T[];
  done: Promise<void>;
  settle: () => void;
}

function newBatch<T>(): Batch<T> {
  let settle = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { items: [], done, settle };
}

/**
 * `write` must never reject (it logs its own failure). `opened`, when given, is called with each
 * new batch's promise as the batch opens (e.g. to register it as background work at once).
 */
export function coalescedWrites<T>(options: {
  maxBatch: number;
  write(items: T[]): Promise<void>;
  opened?: (done: Promise<void>) => void;
}): CoalescedWrites<T> {
  const { maxBatch, write, opened } = options;
  const queue: Batch<T>[] = [];
  let scheduled = false;
  let inFlight: Promise<void> | undefined;
  const flush = () => {
    scheduled = false;
    const batch = inFlight === undefined ? queue.shift() : undefined;
    if (!batch) return;
    inFlight = write(batch.items).finally(() => {
      batch.settle();
      inFlight = undefined;
      flush();
    });
  };
  return {
    add(item) {
      let batch = queue.at(-1);
      if (!batch || batch.items.length >= maxBatch) {
        const fresh = newBatch<T>();
        queue.push(fresh);
        opened?.(fresh.done);
        batch = fresh;
      }
      batch.items.push(item);
      if (!scheduled && inFlight === undefined) {
        scheduled = true;
        setImmediate(flush);
      }
      return batch.done;
    },
    async flushed() {
      while (queue.length > 0 || inFlight !== undefined)
        await Promise.all([inFlight, ...queue.map((batch) => batch.done)]);
    },
  };
}
