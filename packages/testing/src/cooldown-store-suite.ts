import type { CooldownStore } from "@portcullis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { elapse, type StoreFixture, type StoreSuiteOptions, uniqueId } from "./store-fixture.js";

/** The executable contract of `CooldownStore` (see its TSDoc in @portcullis/core). */
export function runCooldownStoreSuite(options: StoreSuiteOptions<CooldownStore>): void {
  describe(`CooldownStore conformance: ${options.name}`, () => {
    let fixture: StoreFixture<CooldownStore>;
    let store: CooldownStore;
    beforeEach(async () => {
      fixture = await options.create();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it("acquire - the first call acquires with the full ttl; a second is refused with what remains", async () => {
      const key = uniqueId("cooldown");
      expect(await store.acquire(key, 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
      const second = await store.acquire(key, 60_000);
      expect(second.acquired).toBe(false);
      expect(second.remainingMs).toBeGreaterThan(55_000);
      expect(second.remainingMs).toBeLessThanOrEqual(60_000);
    });

    it("acquire - 50 concurrent calls on one key: exactly one acquires", async () => {
      const key = uniqueId("cooldown");
      const results = await Promise.all(Array.from({ length: 50 }, () => store.acquire(key, 60_000)));
      expect(results.filter((result) => result.acquired)).toHaveLength(1);
    });

    it("acquire - keys are independent", async () => {
      const a = uniqueId("cooldown");
      const b = uniqueId("cooldown");
      expect((await store.acquire(a, 60_000)).acquired).toBe(true);
      expect((await store.acquire(b, 60_000)).acquired).toBe(true);
      expect(await store.remainingMs(uniqueId("cooldown"))).toBe(0);
    });

    it("remainingMs - counts down, reaches 0 at expiry, and the key can be acquired again", async () => {
      const key = uniqueId("cooldown");
      expect(await store.remainingMs(key)).toBe(0);
      await store.acquire(key, 300);
      const before = await store.remainingMs(key);
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThanOrEqual(300);
      await elapse(fixture, 120);
      expect(await store.remainingMs(key)).toBeLessThan(before);
      await elapse(fixture, 250);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 300)).acquired).toBe(true);
    });

    it("release - ends the cooldown at once; releasing an absent key is a no-op", async () => {
      const key = uniqueId("cooldown");
      await store.acquire(key, 60_000);
      await store.release(key);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
      await expect(store.release(uniqueId("cooldown"))).resolves.toBeUndefined();
    });

    it("increment - counts up from 1; 50 concurrent increments give 50", async () => {
      const key = uniqueId("counter");
      expect(await store.count(key)).toBe(0);
      expect(await store.increment(key, 60_000)).toBe(1);
      expect(await store.increment(key, 60_000)).toBe(2);
      const other = uniqueId("counter");
      const results = await Promise.all(Array.from({ length: 50 }, () => store.increment(other, 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await store.count(other)).toBe(50);
    });

    it("increment - the counter expires ttl after it was created; later hits do not extend it", async () => {
      const key = uniqueId("counter");
      await store.increment(key, 300);
      await elapse(fixture, 200);
      expect(await store.increment(key, 300)).toBe(2);
      await elapse(fixture, 170);
      expect(await store.count(key)).toBe(0);
      expect(await store.increment(key, 300)).toBe(1);
    });

    it("resetCount - removes the counter; absent keys are a no-op", async () => {
      const key = uniqueId("counter");
      await store.increment(key, 60_000);
      await store.resetCount(key);
      expect(await store.count(key)).toBe(0);
      await expect(store.resetCount(uniqueId("counter"))).resolves.toBeUndefined();
    });

    it("counters and cooldowns - the same key name does not mix them", async () => {
      const key = uniqueId("both");
      await store.increment(key, 60_000);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
      expect(await store.count(key)).toBe(1);
    });
  });
}
