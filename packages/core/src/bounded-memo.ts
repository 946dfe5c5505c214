/** A pure function of a string or number, remembered for at most `maxEntries` inputs (see `boundedMemo`). */
export interface BoundedMemo<K extends string | number, V> {
  (key: K): V;
  /** How many inputs are remembered now (at most `maxEntries`). */
  size(): number;
}

/**
 * Remembers `compute`'s result per input, for work a server repeats on every request (a client's
 * socket address, a browser's `Accept-Language`, a user's creation time as ISO 8601). The inputs
 * come from clients, so the memo is emptied whenever it is full: none can grow it past `maxEntries`.
 */
export function boundedMemo<K extends string | number, V>(
  maxEntries: number,
  compute: (key: K) => V,
): BoundedMemo<K, V> {
  const entries = new Map<K, V>();
  const memo = (key: K): V => {
    const hit = entries.get(key);
    if (hit !== undefined || entries.has(key)) return hit as V;
    const value = compute(key);
    if (entries.size >= maxEntries) entries.clear();
    entries.set(key, value);
    return value;
  };
  return Object.assign(memo, { size: () => entries.size });
}
