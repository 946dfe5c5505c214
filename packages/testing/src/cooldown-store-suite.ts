import type { CooldownStore } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, elapse, type StoreFixture, uniqueId } from "./store-fixture.js";

/** A forward jump of the clock (later corrected) that the clock-correction tests make: 2 hours. */
const CLOCK_JUMP_MS = 2 * 3_600_000;

/** The store of one test, and checks of the windows it answers. */
function cooldownContext(fixture: StoreFixture<CooldownStore>) {
  /** A window just opened (or untouched by time): exactly `windowMs` on a movable clock, in (0, windowMs] in real time. */
  const expectWindow = (remainingMs: number, windowMs: number) => {
    if (fixture.advance) expect(remainingMs).toBe(windowMs);
    expect(remainingMs).toBeGreaterThan(0);
    expect(remainingMs).toBeLessThanOrEqual(windowMs);
  };
  /**
   * What is left after time passed: exactly `expected` on a movable clock; in real time a few
   * milliseconds of timer jitter are allowed (still far below a restarted window).
   */
  const expectLeft = (remainingMs: number, expected: number) => {
    if (fixture.advance) expect(remainingMs).toBe(expected);
    expect(remainingMs).toBeGreaterThan(0);
    expect(remainingMs).toBeLessThanOrEqual(expected + 50);
  };
  /** The next hit on `key` starts a new counter: count 1 and a whole new window. Returns the hit. */
  const expectNewCounter = async (key: string, windowMs: number) => {
    const next = await fixture.store.hit(key, windowMs);
    expect(next.count).toBe(1);
    expectWindow(next.remainingMs, windowMs);
    return next;
  };
  /** A new key with a cooldown of `ttlMs` just acquired on it. */
  const acquiredCooldown = async (ttlMs: number) => {
    const key = uniqueId("cooldown");
    await fixture.store.acquire(key, ttlMs);
    return key;
  };
  /** A new counter key, hit `times` times one after the other with `windowMs`. */
  const hitCounter = async (times: number, windowMs: number) => {
    const key = uniqueId("counter");
    for (let i = 0; i < times; i++) await fixture.store.hit(key, windowMs);
    return key;
  };
  return {
    store: fixture.store,
    fixture,
    expectWindow,
    expectLeft,
    expectNewCounter,
    acquiredCooldown,
    hitCounter,
  };
}

/**
 * The executable contract of `CooldownStore` (see its TSDoc in @portcullis/core). Time-dependent
 * tests use TTLs of about half a second, so a store without a movable clock waits about 2 s in all.
 */
export const runCooldownStoreSuite = defineStoreSuite("CooldownStore", cooldownContext, {
  cooldowns: {
    "acquire - the first call acquires with remainingMs = ttlMs; a second is refused with what remains":
      async ({ store }) => {
        const key = uniqueId("cooldown");
        expect(await store.acquire(key, 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
        const second = await store.acquire(key, 60_000);
        expect(second.acquired).toBe(false);
        expect(second.remainingMs).toBeGreaterThan(55_000);
        expect(second.remainingMs).toBeLessThanOrEqual(60_000);
      },
    "acquire - a refused call does not restart the running cooldown": async ({ store, acquiredCooldown }) => {
      const key = await acquiredCooldown(60_000);
      expect((await store.acquire(key, 600_000)).acquired).toBe(false);
      expect(await store.remainingMs(key)).toBeLessThanOrEqual(60_000);
    },
    "acquire - 50 concurrent calls on one key: exactly one acquires": async ({ store }) => {
      const key = uniqueId("cooldown");
      const results = await concurrently(50, () => store.acquire(key, 60_000));
      expect(results.filter((result) => result.acquired)).toHaveLength(1);
      for (const result of results.filter((r) => !r.acquired)) expect(result.remainingMs).toBeGreaterThan(0);
    },
    "acquire - 30 concurrent acquires and remaining reads while the clock moves: every answer within (0, ttlMs]":
      async ({ store, fixture }) => {
        const key = uniqueId("cooldown");
        const ttlMs = 60_000;
        // A real clock moves between the calls; a movable one is moved 1 ms before each call
        // starts, so each call reads another time, and their statements may still run in any order.
        const answers = await concurrently<{ acquired: boolean | null; remainingMs: number }>(30, (index) => {
          void fixture.advance?.(1);
          return index % 3 === 2
            ? store.remainingMs(key).then((remainingMs) => ({ acquired: null, remainingMs }))
            : store.acquire(key, ttlMs);
        });
        const acquires = answers.filter((answer) => answer.acquired !== null);
        expect(acquires.filter((answer) => answer.acquired)).toHaveLength(1);
        for (const { remainingMs } of acquires) {
          expect(Number.isInteger(remainingMs)).toBe(true);
          expect(remainingMs).toBeGreaterThan(0);
          expect(remainingMs).toBeLessThanOrEqual(ttlMs);
        }
        // A read that ran before the acquire may see no cooldown; none sees more than the cooldown.
        for (const { remainingMs } of answers) expect(remainingMs).toBeLessThanOrEqual(ttlMs);
        const reads = await concurrently(25, () => {
          void fixture.advance?.(1);
          return store.remainingMs(key);
        });
        for (const remainingMs of reads) {
          expect(Number.isInteger(remainingMs)).toBe(true);
          expect(remainingMs).toBeGreaterThan(0);
          expect(remainingMs).toBeLessThanOrEqual(ttlMs);
        }
        // As the contract's whole seconds: in (0, 60] for a 60-second cooldown.
        for (const remainingMs of [...acquires.map((answer) => answer.remainingMs), ...reads]) {
          expect(Math.ceil(remainingMs / 1000)).toBeGreaterThanOrEqual(1);
          expect(Math.ceil(remainingMs / 1000)).toBeLessThanOrEqual(60);
        }
      },
    "hit - 30 concurrent hits while the clock moves: every remainingMs within (0, windowMs]": async ({
      store,
      fixture,
    }) => {
      const key = uniqueId("counter");
      const windowMs = 60_000;
      const hits = await concurrently(30, () => {
        void fixture.advance?.(1);
        return store.hit(key, windowMs);
      });
      expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
      for (const { remainingMs } of hits) {
        expect(Number.isInteger(remainingMs)).toBe(true);
        expect(remainingMs).toBeGreaterThan(0);
        expect(remainingMs).toBeLessThanOrEqual(windowMs);
      }
    },
    "acquire - a cooldown taken during a 2 h clock jump, once the clock is corrected: at most ttlMs left, and it ends within ttlMs":
      async ({ store, fixture }) => {
        // A store whose clock the test cannot move (Redis: the server's) is not moved by the jump.
        if (!fixture.advance) return;
        const key = uniqueId("cooldown");
        await fixture.advance(CLOCK_JUMP_MS);
        expect(await store.acquire(key, 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
        await fixture.advance(-CLOCK_JUMP_MS);
        const refused = await store.acquire(key, 60_000);
        expect(refused.acquired).toBe(false);
        expect(refused.remainingMs).toBeGreaterThan(0);
        expect(refused.remainingMs).toBeLessThanOrEqual(60_000);
        const left = await store.remainingMs(key);
        expect(left).toBeGreaterThan(0);
        expect(left).toBeLessThanOrEqual(60_000);
        await fixture.advance(60_000);
        expect(await store.remainingMs(key)).toBe(0);
        expect(await store.acquire(key, 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
      },
    "remainingMs - after a corrected 2 h clock jump: at most the cooldown's length, and it ends within it":
      async ({ store, fixture }) => {
        if (!fixture.advance) return;
        const key = uniqueId("cooldown");
        await fixture.advance(CLOCK_JUMP_MS);
        await store.acquire(key, 30_000);
        await fixture.advance(-CLOCK_JUMP_MS);
        // Only read (a client asking what is left), never acquired again.
        expect(await store.remainingMs(key)).toBe(30_000);
        await fixture.advance(10_000);
        expect(await store.remainingMs(key)).toBe(20_000);
        await fixture.advance(20_000);
        expect(await store.remainingMs(key)).toBe(0);
        expect((await store.acquire(key, 30_000)).acquired).toBe(true);
      },
    "acquire - a refused call with a shorter ttlMs never shortens a running cooldown, even after a clock correction":
      async ({ store, fixture }) => {
        const key = uniqueId("cooldown");
        expect((await store.acquire(key, 60_000)).acquired).toBe(true);
        const refused = await store.acquire(key, 1_000);
        expect(refused.acquired).toBe(false);
        expect(refused.remainingMs).toBeGreaterThan(55_000);
        expect(await store.remainingMs(key)).toBeGreaterThan(55_000);
        if (!fixture.advance) return;
        // Taken during a jump, the clock corrected: its own 60 s from now, not the refused call's 1 s.
        const jumped = uniqueId("cooldown");
        await fixture.advance(CLOCK_JUMP_MS);
        await store.acquire(jumped, 60_000);
        await fixture.advance(-CLOCK_JUMP_MS);
        expect(await store.acquire(jumped, 1_000)).toEqual({ acquired: false, remainingMs: 60_000 });
        await fixture.advance(59_000);
        expect(await store.remainingMs(jumped)).toBe(1_000);
      },
    "acquire - keys are independent": async ({ store }) => {
      const a = uniqueId("cooldown");
      const b = uniqueId("cooldown");
      expect((await store.acquire(a, 60_000)).acquired).toBe(true);
      expect((await store.acquire(b, 60_000)).acquired).toBe(true);
      await store.release(a);
      expect(await store.remainingMs(a)).toBe(0);
      expect(await store.remainingMs(b)).toBeGreaterThan(0);
    },
    "remainingMs - 0 for a key that never had a cooldown": async ({ store }) => {
      expect(await store.remainingMs(uniqueId("cooldown"))).toBe(0);
    },
    "remainingMs - counts down, reaches 0 at expiry, and the key can be acquired again": async ({
      store,
      fixture,
      acquiredCooldown,
    }) => {
      const key = await acquiredCooldown(500);
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
    },
    "release - ends the cooldown at once, so the key can be acquired again": async ({
      store,
      acquiredCooldown,
    }) => {
      const key = await acquiredCooldown(60_000);
      await store.release(key);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
    },
    "release - a no-op when no cooldown runs": async ({ store }) => {
      await expect(store.release(uniqueId("cooldown"))).resolves.toBeUndefined();
    },
  },
  counters: {
    "hit - counts 1, 2, 3 and answers what is left of the window": async ({ store, expectWindow }) => {
      const key = uniqueId("counter");
      for (const expected of [1, 2, 3]) {
        const result = await store.hit(key, 60_000);
        expect(result.count).toBe(expected);
        expectWindow(result.remainingMs, 60_000);
      }
    },
    "hit - 50 concurrent hits on a fresh key: each count 1…50 is returned exactly once": async ({
      store,
      expectWindow,
    }) => {
      const key = uniqueId("counter");
      const results = await concurrently(50, () => store.hit(key, 60_000));
      const counts = results.map((result) => result.count).sort((a, b) => a - b);
      expect(counts).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      for (const result of results) expectWindow(result.remainingMs, 60_000);
      expect((await store.hit(key, 60_000)).count).toBe(51);
    },
    "hit - later hits do not extend the window; after it ends the next hit counts 1 again": async ({
      store,
      fixture,
      expectWindow,
      expectLeft,
      expectNewCounter,
    }) => {
      const key = uniqueId("counter");
      const first = await store.hit(key, 500);
      expect(first.count).toBe(1);
      expectWindow(first.remainingMs, 500);
      await elapse(fixture, 250);
      // A later hit, even with a longer window, keeps the first hit's end.
      const second = await store.hit(key, 60_000);
      expect(second.count).toBe(2);
      expectLeft(second.remainingMs, 250);
      await elapse(fixture, 300);
      await expectNewCounter(key, 500);
    },
    "hit - a window opened during a 2 h clock jump, once the clock is corrected: at most windowMs left, then the next hit counts 1":
      async ({ store, fixture, expectNewCounter }) => {
        if (!fixture.advance) return;
        const key = uniqueId("counter");
        await fixture.advance(CLOCK_JUMP_MS);
        expect((await store.hit(key, 60_000)).count).toBe(1);
        await fixture.advance(-CLOCK_JUMP_MS);
        const second = await store.hit(key, 60_000);
        expect(second.count).toBe(2);
        expect(second.remainingMs).toBeGreaterThan(0);
        expect(second.remainingMs).toBeLessThanOrEqual(60_000);
        await fixture.advance(60_000);
        await expectNewCounter(key, 60_000);
      },
    "hit - keys are independent": async ({ store, hitCounter }) => {
      const a = await hitCounter(2, 60_000);
      const b = uniqueId("counter");
      expect((await store.hit(b, 60_000)).count).toBe(1);
      await store.refundHit(b);
      await store.clearHits(b);
      expect((await store.hit(a, 60_000)).count).toBe(3);
      expect((await store.hit(b, 60_000)).count).toBe(1);
    },
    "refundHit - lowers the count by one and keeps the window's end": async ({
      store,
      fixture,
      expectLeft,
      hitCounter,
    }) => {
      const key = await hitCounter(3, 500);
      await elapse(fixture, 200);
      await store.refundHit(key);
      const next = await store.hit(key, 500);
      expect(next.count).toBe(3);
      expectLeft(next.remainingMs, 300);
    },
    "refundHit - never lowers the count below 0": async ({ store, expectNewCounter, hitCounter }) => {
      const key = await hitCounter(1, 60_000);
      await store.refundHit(key);
      await store.refundHit(key);
      await store.refundHit(key);
      await expectNewCounter(key, 60_000);
    },
    "refundHit - a no-op when there is no counter, or it expired": async ({
      store,
      fixture,
      expectNewCounter,
      hitCounter,
    }) => {
      const absent = uniqueId("counter");
      await expect(store.refundHit(absent)).resolves.toBeUndefined();
      await expectNewCounter(absent, 60_000);

      const expired = await hitCounter(2, 200);
      await elapse(fixture, 250);
      await expect(store.refundHit(expired)).resolves.toBeUndefined();
      expect((await expectNewCounter(expired, 60_000)).remainingMs).toBeGreaterThan(55_000);
    },
    "hit / refundHit - 50 concurrent hits interleaved with 10 concurrent refunds end at 40": async ({
      store,
    }) => {
      const key = uniqueId("counter");
      const hits = Array.from({ length: 50 }, () => store.hit(key, 60_000));
      // Refund i starts once hit i has counted (so none can find the counter at 0 and be lost),
      // while the other hits are still in flight.
      const refunds = hits.slice(0, 10).map((hit) => hit.then(() => store.refundHit(key)));
      await Promise.all([...hits, ...refunds]);
      expect((await store.hit(key, 60_000)).count).toBe(41);
    },
    "clearHits - removes the counter, so the next hit counts 1 with a new window": async ({
      store,
      expectNewCounter,
      hitCounter,
    }) => {
      const key = await hitCounter(2, 500);
      await store.clearHits(key);
      expect((await expectNewCounter(key, 60_000)).remainingMs).toBeGreaterThan(55_000);
    },
    "clearHits - a no-op when there is no counter": async ({ store }) => {
      await expect(store.clearHits(uniqueId("counter"))).resolves.toBeUndefined();
    },
    "clearKeys (optional) - removes the counters and ends the cooldowns named; other keys and kinds are kept":
      async ({ store, hitCounter, acquiredCooldown }) => {
        if (!store.clearKeys) return;
        const [a, b, kept] = [
          await hitCounter(3, 60_000),
          await hitCounter(1, 60_000),
          await hitCounter(1, 60_000),
        ];
        const [c, d, running] = [
          await acquiredCooldown(60_000),
          await acquiredCooldown(60_000),
          await acquiredCooldown(60_000),
        ];
        // A key with both a counter and a cooldown: only the kind named is cleared.
        const both = uniqueId("both");
        await store.hit(both, 60_000);
        await store.acquire(both, 60_000);
        await store.clearKeys([a, b, both], [c, d]);
        for (const key of [a, b, both]) expect((await store.hit(key, 60_000)).count, key).toBe(1);
        for (const key of [c, d]) {
          expect(await store.remainingMs(key), key).toBe(0);
          expect((await store.acquire(key, 60_000)).acquired, key).toBe(true);
        }
        expect((await store.hit(kept, 60_000)).count).toBe(2);
        expect(await store.remainingMs(running)).toBeGreaterThan(0);
        expect(await store.remainingMs(both)).toBeGreaterThan(0);
      },
    "clearKeys (optional) - a no-op for absent keys and empty lists; only counters, or only cooldowns":
      async ({ store, hitCounter, acquiredCooldown }) => {
        if (!store.clearKeys) return;
        await expect(store.clearKeys([uniqueId("counter")], [uniqueId("cooldown")])).resolves.toBeUndefined();
        await expect(store.clearKeys([], [])).resolves.toBeUndefined();
        const counter = await hitCounter(2, 60_000);
        const cooldown = await acquiredCooldown(60_000);
        await store.clearKeys([counter], []);
        expect(await store.remainingMs(cooldown)).toBeGreaterThan(0);
        expect((await store.hit(counter, 60_000)).count).toBe(1);
        await store.clearKeys([], [cooldown]);
        expect(await store.remainingMs(cooldown)).toBe(0);
        expect((await store.hit(counter, 60_000)).count).toBe(2);
      },
    "clearKeys (optional) - 20 concurrent clears beside 20 concurrent hits: the count is at most 20, then clear":
      async ({ store }) => {
        if (!store.clearKeys) return;
        const [counter, lock] = [uniqueId("counter"), uniqueId("cooldown")];
        await store.acquire(lock, 60_000);
        const results = await Promise.all([
          ...Array.from({ length: 20 }, () => store.hit(counter, 60_000).then(({ count }) => count)),
          ...Array.from({ length: 20 }, () => store.clearKeys?.([counter], [lock]).then(() => 0)),
        ]);
        for (const count of results) expect(count).toBeLessThanOrEqual(20);
        expect(await store.remainingMs(lock)).toBe(0);
        await store.clearKeys([counter], [lock]);
        expect((await store.hit(counter, 60_000)).count).toBe(1);
      },
  },
  "": {
    "acquire / hit - a cooldown and a counter on the same key do not interfere": async ({ store }) => {
      const key = uniqueId("both");
      expect((await store.hit(key, 60_000)).count).toBe(1);
      expect(await store.remainingMs(key)).toBe(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
      expect((await store.hit(key, 60_000)).count).toBe(2);
      await store.clearHits(key);
      expect(await store.remainingMs(key)).toBeGreaterThan(0);
      expect((await store.acquire(key, 60_000)).acquired).toBe(false);
      expect((await store.hit(key, 60_000)).count).toBe(1);
      await store.refundHit(key);
      expect(await store.remainingMs(key)).toBeGreaterThan(0);
      await store.release(key);
      expect((await store.hit(key, 60_000)).count).toBe(1);
      expect((await store.acquire(key, 60_000)).acquired).toBe(true);
    },
  },
});
