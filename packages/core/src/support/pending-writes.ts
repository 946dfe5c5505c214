/**
 * The writes a call's events start (activity entries, audit entries), so the call's answer can
 * wait for them: `within` runs a call and settles once every write started while it ran has
 * settled. It keeps no per-call context (an `AsyncLocalStorage` scope turns on promise hooks for
 * every promise of the process, ~3.5 µs a request measured), so a call may also wait for a
 * concurrent call's write; a call during which no write started waits for none.
 */
export interface PendingWrites {
  /** Counts `write` as started now; `write` must never reject (its failure is logged by whoever made it). */
  track(write: Promise<void>): void;
  /**
   * Runs `work`; the returned promise settles after `work` settles (resolved or rejected) and
   * every write tracked while it ran has settled.
   */
  within<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The tracker of one `createAuth`. With `enabled` false (no store records anything) `within`
 * runs the work as is, not even one more tick.
 */
export function createPendingWrites(enabled = true): PendingWrites {
  let started = 0;
  const inFlight = new Map<number, Promise<void>>();
  return {
    track(write) {
      const sequence = ++started;
      inFlight.set(sequence, write);
      void write.then(() => inFlight.delete(sequence));
    },
    async within(work) {
      if (!enabled) return work();
      const from = started;
      try {
        return await work();
      } finally {
        if (started !== from) {
          const until = started;
          const writes: Promise<void>[] = [];
          for (const [sequence, write] of inFlight)
            if (sequence > from && sequence <= until) writes.push(write);
          await Promise.all(writes);
        }
      }
    },
  };
}
