import { type Clock, type CooldownStore, systemClock } from "@portcullis/core";
import { ExpiringKeys, ExpiringMap, type Sweepable } from "./expiring-map.js";

export type MemoryCooldownStore = CooldownStore & Sweepable;

/**
 * Cooldowns and attempt counters in one process's memory. JavaScript runs one call at a time, and
 * every method finishes its read-and-write before it awaits anything, so `acquire`, `hit` and
 * `refundHit` are atomic within the process (not across processes: use store-redis for that).
 * A cooldown's end is on the clock made monotonic (`ExpiringKeys`): a clock set back leaves each
 * running cooldown what it had left, so never more than its length. A counter's end is a deadline
 * on `clock`, moved to its `windowMs` from now when further away (the clock was set back).
 */
export function createMemoryCooldownStore(options: { clock?: Clock } = {}): MemoryCooldownStore {
  const clock = options.clock ?? systemClock;
  const cooldowns = new ExpiringKeys(clock);
  const counters = new ExpiringMap<number>(clock);
  return {
    async acquire(key, ttlMs) {
      const remainingMs = cooldowns.ttlMs(key);
      if (remainingMs > 0) return { acquired: false, remainingMs };
      cooldowns.add(key, ttlMs);
      return { acquired: true, remainingMs: ttlMs };
    },
    async remainingMs(key) {
      return cooldowns.ttlMs(key);
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
