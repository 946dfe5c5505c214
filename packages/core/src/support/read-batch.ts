/**
 * For store implementations (store-sql's allowlist on PostgreSQL, store-redis's allowlist):
 * reads by key that arrive in one turn of the event loop, sent as one statement. Each call
 * registers its key; the first schedules a flush with `setImmediate`, which runs after the I/O
 * callbacks of the turn (the HTTP requests parsed together), so requests that arrive together
 * share one round trip, and a lone request waits one turn. Every read starts after its call: a
 * row changed before the call (a revoked access token) is seen by it. At most `maxKeys` keys go
 * into one statement; more start another. A failing statement rejects every call it carried.
 */
export function createReadBatch<K, V>(
  readMany: (keys: K[]) => Promise<Map<K, V>>,
  maxKeys = 100,
): (key: K) => Promise<V | undefined> {
  let pending: Map<K, ((value: V | undefined) => void)[]> | null = null;
  let failures: ((error: unknown) => void)[] = [];

  const flush = (
    batch: Map<K, ((value: V | undefined) => void)[]>,
    rejects: ((error: unknown) => void)[],
  ) => {
    // A `readMany` that throws instead of rejecting still rejects its calls (never the timer's turn).
    new Promise<Map<K, V>>((resolve) => resolve(readMany([...batch.keys()]))).then(
      (found) => {
        for (const [key, waiting] of batch) for (const resolve of waiting) resolve(found.get(key));
      },
      (error: unknown) => {
        for (const reject of rejects) reject(error);
      },
    );
  };

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      if (pending === null || (pending.size >= maxKeys && !pending.has(key))) {
        const batch = new Map<K, ((value: V | undefined) => void)[]>();
        const rejects: ((error: unknown) => void)[] = [];
        pending = batch;
        failures = rejects;
        setImmediate(() => {
          if (pending === batch) pending = null;
          flush(batch, rejects);
        });
      }
      const waiting = pending.get(key);
      if (waiting) waiting.push(resolve);
      else pending.set(key, [resolve]);
      failures.push(reject);
    });
}
