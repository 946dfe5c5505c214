import { type Clock, type CooldownStore, systemClock } from "@portcullis/core";
import { ExpiringMap, type Sweepable } from "./expiring-map.js";

export type MemoryCooldownStore = CooldownStore & Sweepable;

/**
 * Cooldowns and attempt counters in one process's memory. JavaScript runs one call at a time, and
 * every method finishes its read-and-write before it awaits anything, so `acquire`, `hit` and
 * `refundHit` are atomic within the process (not across processes: use store-redis for that).
 * Ends are deadlines on `clock`; a cooldown keeps the length it was started with, and an end
 * further away than that length (the clock was set back) is moved to it from now, as is a
 * counter's end further than its `windowMs`.
 */
export function createMemoryCooldownStore(options: { clock?: Clock } = {}): MemoryCooldownStore {
  const clock = options.clock ?? systemClock;
  /** Each running cooldown's length (ms), under its end. */
  const cooldowns = new ExpiringMap<number>(clock);
  /** What is left of `key`'s cooldown, its end first moved to its length from now when further. */
  const cooldownLeft = (key: string) => {
    const lengthMs = cooldowns.get(key);
    if (lengthMs === undefined) return 0;
    cooldowns.cap(key, lengthMs);
    return cooldowns.ttlMs(key);
  };
  const counters = new ExpiringMap<number>(clock);
  return {
    async acquire(key, ttlMs) {
      const remainingMs = cooldownLeft(key);
      if (remainingMs > 0) return { acquired: false, remainingMs };
      cooldowns.set(key, ttlMs, ttlMs);
      return { acquired: true, remainingMs: ttlMs };
    },
    async remainingMs(key) {
      return cooldownLeft(key);
    },
    async release(key) {
      cooldowns.delete(key);
    },
    async hit(key, windowMs) {
      const current = counters.get(key);
      if (current === undefined) {
        counters.set(key, 1, windowMs);
        return { count: 1, remainingMs: windowMs };
      }
      const count = current + 1;
      counters.cap(key, windowMs);
      const remainingMs = counters.ttlMs(key);
      counters.set(key, count, remainingMs); // same end: the window is never extended
      return { count, remainingMs };
    },
    async refundHit(key) {
      const current = counters.get(key);
      if (current === undefined) return;
      counters.set(key, Math.max(0, current - 1), counters.ttlMs(key));
    },
    async clearHits(key) {
      counters.delete(key);
    },
    async clearKeys(counterKeys, cooldownKeys) {
      for (const key of counterKeys) counters.delete(key);
      for (const key of cooldownKeys) cooldowns.delete(key);
    },
    sweep: () => cooldowns.sweep() + counters.sweep(),
    size: () => cooldowns.size + counters.size,
  };
}
