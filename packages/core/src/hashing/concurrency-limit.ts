/**
 * Runs at most `limit` tasks at once; the others wait their turn in arrival order. A task that
 * finishes, fails or throws hands its slot straight to the next one waiting.
 */
export function createConcurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`a concurrency limit is a positive integer, got ${limit}`);
  }
  let running = 0;
  // A queue as an array with a moving head: `shift()` would copy the rest on every turn.
  let waiting: ((() => void) | undefined)[] = [];
  let head = 0;

  const release = () => {
    if (head === waiting.length) {
      running -= 1;
      return;
    }
    const next = waiting[head] as () => void;
    waiting[head] = undefined;
    head += 1;
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    }
    next();
  };

  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < limit) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
