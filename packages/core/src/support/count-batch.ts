/** One waiting call of a count batch, with how much it counts. */
interface Waiting<T> {
  weight: number;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * For store implementations (the API key stores of store-sql on PostgreSQL and of store-redis):
 * counts by key that arrive in one turn of the event loop, sent as one statement or script. Each
 * call registers its key; the first schedules a flush with `setImmediate`, which runs after the
 * I/O callbacks of the turn (the HTTP requests parsed together). `countMany` receives each key
 * once with its number of calls and the window they count in, and answers what it stored per key
 * (after adding them all); `answer` turns that into each call's value, given the call's place
 * among the key's calls of the turn (`nth`, from 0, in arrival order) and their number (`of`), so
 * a key's calls get consecutive counts as one at a time would. At most `maxKeys` keys and one
 * window length go into one flush; a call that fits neither starts another. A failing `countMany`
 * rejects every call it carried; an `answer` that throws rejects its own call.
 */
export function createCountBatch<R, T>(
  countMany: (counts: Map<string, number>, windowMs: number) => Promise<Map<string, R>>,
  answer: (
    counted: R | undefined,
    call: { through: number; of: number; weight: number; windowMs: number },
  ) => T,
  maxKeys = 100,
): (key: string, windowMs: number, weight?: number) => Promise<T> {
  let pending: { windowMs: number; waiting: Map<string, Waiting<T>[]> } | null = null;
  const settle = (counted: Map<string, R>, waiting: Map<string, Waiting<T>[]>, windowMs: number) => {
    for (const [key, calls] of waiting) {
      const of = calls.reduce((sum, call) => sum + call.weight, 0);
      let through = 0;
      for (const call of calls) {
        through += call.weight;
        try {
          call.resolve(answer(counted.get(key), { through, of, weight: call.weight, windowMs }));
        } catch (error) {
          call.reject(error);
        }
      }
    }
  };
  const flush = (windowMs: number, waiting: Map<string, Waiting<T>[]>) => {
    const counts = new Map(
      [...waiting].map(([key, calls]) => [key, calls.reduce((sum, call) => sum + call.weight, 0)]),
    );
    // A `countMany` that throws instead of rejecting still rejects its calls (never the timer's turn).
    new Promise<Map<string, R>>((resolve) => resolve(countMany(counts, windowMs))).then(
      (counted) => settle(counted, waiting, windowMs),
      (error: unknown) => {
        for (const calls of waiting.values()) for (const call of calls) call.reject(error);
      },
    );
  };
  return (key, windowMs, weight = 1) =>
    new Promise<T>((resolve, reject) => {
      let batch = pending;
      const fits =
        batch !== null &&
        batch.windowMs === windowMs &&
        (batch.waiting.size < maxKeys || batch.waiting.has(key));
      if (batch === null || !fits) {
        const started = { windowMs, waiting: new Map<string, Waiting<T>[]>() };
        batch = started;
        pending = started;
        setImmediate(() => {
          if (pending === started) pending = null;
          flush(started.windowMs, started.waiting);
        });
      }
      const calls = batch.waiting.get(key);
      if (calls) calls.push({ weight, resolve, reject });
      else batch.waiting.set(key, [{ weight, resolve, reject }]);
    });
}
