/**
 * The core's one cache: a map of at most `maxEntries` entries that forgets its least recently used
 * entry to make room (see `createLru`). Every cache of the core is one of these, so there is one
 * place to look for how an answer can be remembered and when it is forgotten.
 */
export interface Lru<K, V> {
  /** The value of `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined;
  /** Whether `key` is held (without using it). */
  has(key: K): boolean;
  /** Stores `value` as the most recently used, dropping the least recently used entry when full. */
  set(key: K, value: V): void;
  /** Forgets `key`. */
  delete(key: K): void;
  /** Forgets everything. */
  clear(): void;
  /** How many entries are held now (at most `maxEntries`). */
  readonly size: number;
}

/**
 * An LRU map of at most `maxEntries` entries (0 holds nothing). A `Map` keeps insertion order, so
 * a use moves its entry to the end and the first entry is the least recently used. Using the entry
 * already used last (a flood of one request) costs one lookup.
 */
export function createLru<K, V>(maxEntries: number): Lru<K, V> {
  const entries = new Map<K, V>();
  // The key used last, once it is known to be at the end of `entries`.
  let newest: K | undefined;
  let newestKnown = false;
  const forgetNewest = () => {
    newest = undefined;
    newestKnown = false;
  };
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined && !entries.has(key)) return undefined;
      if (!newestKnown || newest !== key) {
        entries.delete(key);
        entries.set(key, value as V);
        newest = key;
        newestKnown = true;
      }
      return value;
    },
    has: (key) => entries.has(key),
    set(key, value) {
      if (maxEntries <= 0) return;
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as K);
      entries.set(key, value);
      newest = key;
      newestKnown = true;
    },
    delete(key) {
      entries.delete(key);
      if (newest === key) forgetNewest();
    },
    clear() {
      entries.clear();
      forgetNewest();
    },
    get size() {
      return entries.size;
    },
  };
}

/** A pure function of a string or number, remembered for at most `maxEntries` inputs (see `boundedMemo`). */
export interface BoundedMemo<K extends string | number, V> {
  (key: K): V;
  /** How many inputs are remembered now (at most `maxEntries`). */
  size(): number;
}

/**
 * Remembers `compute`'s result per input in an LRU of `maxEntries`, for work a server repeats on
 * every request. The inputs come from clients, so none can grow the memo past `maxEntries`.
 */
export function boundedMemo<K extends string | number, V>(
  maxEntries: number,
  compute: (key: K) => V,
): BoundedMemo<K, V> {
  const lru = createLru<K, V>(maxEntries);
  const memo = (key: K): V => {
    const hit = lru.get(key);
    if (hit !== undefined || lru.has(key)) return hit as V;
    const value = compute(key);
    lru.set(key, value);
    return value;
  };
  return Object.assign(memo, { size: () => lru.size });
}
