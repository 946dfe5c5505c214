import type { CooldownStore } from "@portcullis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  concurrently,
  elapse,
  type StoreFixture,
  type StoreSuiteOptions,
  uniqueId,
} from "./store-fixture.js";

/**
 * The executable contract of `CooldownStore` (see its TSDoc in @portcullis/core). Time-dependent
 * tests use TTLs of about half a second, so a store without a movable clock waits about 2 s in all.
 */
export function runCooldownStoreSuite(options: StoreSuiteOptions<CooldownStore>): void {
  describe(`CooldownStore conformance: ${options.name ?? "store"}`, () => {
    let fixture: StoreFixture<CooldownStore>;
    let store: CooldownStore;
    beforeEach(async () => {
      fixture = await options.create();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    describe("cooldowns", () => {
      it("acquire - the first call acquires with remainingMs = ttlMs; a second is refused with what remains", async () => {
        const key = uniqueId("cooldown");
        expect(await store.acquire(key, 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
        const second = await store.acquire(key, 60_000);
        expect(second.acquired).toBe(false);
        expect(second.remainingMs).toBeGreaterThan(55_000);
        expect(second.remainingMs).toBeLessThanOrEqual(60_000);
      });

      it("acquire - a refused call does not restart the running cooldown", async () => {
        const key = uniqueId("cooldown");
        await store.acquire(key, 60_000);
        expect((await store.acquire(key, 600_000)).acquired).toBe(false);
        expect(await store.remainingMs(key)).toBeLessThanOrEqual(60_000);
      });

      it("acquire - 50 concurrent calls on one key: exactly one acquires", async () => {
        const key = uniqueId("cooldown");
        const results = await concurrently(50, () => store.acquire(key, 60_000));
        expect(results.filter((result) => result.acquired)).toHaveLength(1);
        for (const result of results.filter((r) => !r.acquired))
          expect(result.remainingMs).toBeGreaterThan(0);
      });

      it("acquire - keys are independent", async () => {
        const a = uniqueId("cooldown");
        const b = uniqueId("cooldown");
        expect((await store.acquire(a, 60_000)).acquired).toBe(true);
        expect((await store.acquire(b, 60_000)).acquired).toBe(true);
        await store.release(a);
        expect(await store.remainingMs(a)).toBe(0);
        expect(await store.remainingMs(b)).toBeGreaterThan(0);
      });

      it("remainingMs - 0 for a key that never had a cooldown", async () => {
        expect(await store.remainingMs(uniqueId("cooldown"))).toBe(0);
      });

      it("remainingMs - counts down, reaches 0 at expiry, and the key can be acquired again", async () => {
        const key = uniqueId("cooldown");
        await store.acquire(key, 500);
        const before = await store.remainingMs(key);
        expect(before).toBeGreaterThan(0);
        expect(before).toBeLessThanOrEqual(500);
        await elapse(fixture, 150);
        const later = await store.remainingMs(key);
        if (fixture.advance) expect(later).toBe(350);
        expect(later).toBeLessThan(before);
        expect(later).toBeGreaterThan(0);
        const refused = await store.acquire(key, 500);
        expect(refused.acquired).toBe(false);
        expect(refused.remainingMs).toBeLessThanOrEqual(later);
        await elapse(fixture, 400);
        expect(await store.remainingMs(key)).toBe(0);
        expect(await store.acquire(key, 500)).toEqual({ acquired: true, remainingMs: 500 });
      });

      it("release - ends the cooldown at once, so the key can be acquired again", async () => {
        const key = uniqueId("cooldown");
        await store.acquire(key, 60_000);
        await store.release(key);
        expect(await store.remainingMs(key)).toBe(0);
        expect((await store.acquire(key, 60_000)).acquired).toBe(true);
      });

      it("release - a no-op when no cooldown runs", async () => {
        await expect(store.release(uniqueId("cooldown"))).resolves.toBeUndefined();
      });
    });

    describe("counters", () => {
      it("count - 0 for a key that was never incremented", async () => {
        expect(await store.count(uniqueId("counter"))).toBe(0);
      });

      it("increment - counts up from 1 and returns the new count", async () => {
        const key = uniqueId("counter");
        expect(await store.increment(key, 60_000)).toBe(1);
        expect(await store.increment(key, 60_000)).toBe(2);
        expect(await store.count(key)).toBe(2);
      });

      it("increment - 50 concurrent increments give 50, each count returned once", async () => {
        const key = uniqueId("counter");
        const results = await concurrently(50, () => store.increment(key, 60_000));
        expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        expect(await store.count(key)).toBe(50);
      });

      it("increment - keys are independent", async () => {
        const a = uniqueId("counter");
        const b = uniqueId("counter");
        await store.increment(a, 60_000);
        await store.increment(a, 60_000);
        expect(await store.increment(b, 60_000)).toBe(1);
        await store.resetCount(b);
        expect(await store.count(a)).toBe(2);
      });

      it("increment - the counter expires ttlMs after it was created; later hits do not extend it", async () => {
        const key = uniqueId("counter");
        expect(await store.increment(key, 500)).toBe(1);
        await elapse(fixture, 250);
        expect(await store.increment(key, 500)).toBe(2);
        await elapse(fixture, 300);
        expect(await store.count(key)).toBe(0);
        expect(await store.increment(key, 500)).toBe(1);
      });

      it("resetCount - removes the counter, so counting starts again at 1", async () => {
        const key = uniqueId("counter");
        await store.increment(key, 60_000);
        await store.increment(key, 60_000);
        await store.resetCount(key);
        expect(await store.count(key)).toBe(0);
        expect(await store.increment(key, 60_000)).toBe(1);
      });

      it("resetCount - a no-op when there is no counter", async () => {
        await expect(store.resetCount(uniqueId("counter"))).resolves.toBeUndefined();
      });
    });

    it("acquire / increment - a cooldown and a counter with the same key do not mix", async () => {
      const key = uniqueId("both");
      await store.increment(key, 60_000);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
      expect(await store.count(key)).toBe(1);
      await store.release(key);
      expect(await store.count(key)).toBe(1);
      await store.resetCount(key);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
    });
  });
}
