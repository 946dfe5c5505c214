import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { CooldownError } from "../errors.js";
import { createThrottle, type ThrottlePolicy } from "./throttle.js";

/** Five free attempts an hour, then a lock of 30 s that doubles up to 15 minutes. */
const POLICY: ThrottlePolicy = {
  name: "test",
  code: "LOGIN_THROTTLED",
  freeAttempts: 5,
  windowMs: 3_600_000,
  lock: { baseMs: 30_000, maxMs: 900_000 },
  onSuccess: "clear",
};

function setup(policy: Partial<ThrottlePolicy> = {}) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const { cooldowns } = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const throttle = createThrottle(cooldowns, { ...POLICY, ...policy });
  /** "ok" (let through, then failed or `succeed`ed), or "429 <seconds>". */
  const attempt = async (subject = "ada", succeed = false) => {
    try {
      const ticket = await throttle.attempt(subject);
      if (succeed) await ticket.succeeded();
      return "ok";
    } catch (error) {
      if (error instanceof CooldownError) return `${error.code} ${error.remainingSeconds}`;
      throw error;
    }
  };
  /** Plays `steps` for the default subject: a number moves the clock (ms), a string is the next attempt's answer. */
  const play = async (steps: (number | string)[]) => {
    for (const [index, step] of steps.entries()) {
      if (typeof step === "number") clock.advance(step);
      else expect(await attempt(), `step ${index}`).toBe(step);
    }
  };
  return { throttle, clock, attempt, play, cooldowns };
}

describe("throttle", () => {
  it("attempt - the budget, then a lock that lets one attempt through when it ends and doubles", async () => {
    const { attempt, play } = setup();
    await play(["ok", "ok", "ok", "ok", "ok", "LOGIN_THROTTLED 30", "LOGIN_THROTTLED 30", 30_000, "ok"]);
    // Every attempt counts, refused ones too: 8 hits → 2^(8-5-1) × 30 s.
    await play(["LOGIN_THROTTLED 120", 120_000]);
    expect(await attempt("ada", true)).toBe("ok");
    expect(await attempt()).toBe("ok");
  });

  it("attempt - a lock taken during a 2 h clock jump, once the clock is corrected: refused for at most its 30 s, then one attempt through", async () => {
    const { clock, play } = setup();
    clock.advance(2 * 3_600_000);
    await play(["ok", "ok", "ok", "ok", "ok", "LOGIN_THROTTLED 30"]);
    clock.advance(-2 * 3_600_000);
    // As if the clock had never jumped: the running lock's own 30 s, then the doubling goes on
    // (9 hits → 2^(9-5-1) × 30 s).
    await play(["LOGIN_THROTTLED 30", 29_000, "LOGIN_THROTTLED 1", 1_000, "ok", "LOGIN_THROTTLED 240"]);
  });

  it("attempt - locks never pass maxMs and end: not a permanent lock", async () => {
    const { attempt, play } = setup();
    for (let i = 0; i < 60; i++) await attempt();
    await play(["LOGIN_THROTTLED 30", 30_000, "ok", "LOGIN_THROTTLED 900", 3_600_000, "ok"]);
  });

  it("attempt - 35 concurrent attempts let exactly the budget through", async () => {
    const { attempt } = setup();
    const results = await Promise.all(Array.from({ length: 35 }, () => attempt()));
    expect(results.filter((result) => result === "ok")).toHaveLength(5);
  });

  it("attempt - still exactly the budget when the store answers out of order (attempt 7 reaches the lock before 6)", async () => {
    const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
    const { cooldowns } = createMemoryStores({ clock, sweepIntervalMs: 0 });
    // The first take of the lock (attempt 6's) is held until every other attempt has settled.
    let othersSettled: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      othersSettled = resolve;
    });
    let delayed = false;
    const slow: typeof cooldowns = {
      ...cooldowns,
      async acquire(key, ttlMs) {
        if (!delayed && key.includes(":lock:")) {
          delayed = true;
          await held;
        }
        return cooldowns.acquire(key, ttlMs);
      },
    };
    const throttle = createThrottle(slow, { ...POLICY, name: "race" });
    let settled = 0;
    const results = await Promise.all(
      Array.from({ length: 35 }, () =>
        throttle
          .attempt("ada")
          .then(
            () => "ok",
            (error) => error.code,
          )
          .then((result) => {
            if (++settled === 34) othersSettled();
            return result;
          }),
      ),
    );
    expect(delayed).toBe(true);
    expect(results.filter((result) => result === "ok")).toHaveLength(5);
    clock.advance(30_000);
    expect(await throttle.attempt("ada").then(() => "ok")).toBe("ok");
  });

  it("attempt - subjects are counted apart; clear forgets one subject's count and lock", async () => {
    const { throttle, attempt } = setup();
    for (let i = 0; i < 6; i++) await attempt("ada");
    expect(await attempt("grace")).toBe("ok");
    await throttle.clear("ada");
    expect(await attempt("ada")).toBe("ok");
  });

  it("clear - one clearKeys call forgets the counter and both lock keys; a store without it gets the calls one by one", async () => {
    for (const withClearKeys of [true, false]) {
      const { throttle, attempt, cooldowns } = setup();
      const calls: string[] = [];
      const { clearKeys, clearHits, release } = cooldowns;
      cooldowns.clearKeys = withClearKeys
        ? async (counters, locks) => {
            calls.push(`clearKeys ${counters.length} ${locks.length}`);
            await clearKeys?.call(cooldowns, counters, locks);
          }
        : undefined;
      cooldowns.clearHits = async (key) => {
        calls.push("clearHits");
        await clearHits.call(cooldowns, key);
      };
      cooldowns.release = async (key) => {
        calls.push("release");
        await release.call(cooldowns, key);
      };
      for (let i = 0; i < 6; i++) await attempt("ada");
      expect(await attempt("ada")).toMatch(/^LOGIN_THROTTLED/);
      await throttle.clear("ada");
      expect(calls).toEqual(withClearKeys ? ["clearKeys 1 2"] : ["clearHits", "release", "release"]);
      for (let i = 0; i < 5; i++) expect(await attempt("ada"), String(withClearKeys)).toBe("ok");
    }
  });

  it("attempt - without a lock, a fixed window: refused until it ends, Retry-After is what is left of it", async () => {
    const { play } = setup({ lock: undefined, freeAttempts: 2, windowMs: 60_000, code: "RATE_LIMITED" });
    await play(["ok", 20_000, "ok", "RATE_LIMITED 40", 40_000, "ok"]);
  });

  it("succeeded - refund gives one attempt back; keep does not", async () => {
    const refund = setup({ lock: undefined, freeAttempts: 2, onSuccess: "refund" });
    for (let i = 0; i < 5; i++) expect(await refund.attempt("ip", true)).toBe("ok");
    const keep = setup({ lock: undefined, freeAttempts: 2, onSuccess: "keep", code: "RATE_LIMITED" });
    expect(await keep.attempt("ip", true)).toBe("ok");
    expect(await keep.attempt("ip", true)).toBe("ok");
    expect(await keep.attempt("ip", true)).toMatch(/^RATE_LIMITED/);
  });

  it("abandoned - gives the attempt back with every policy, never below zero", async () => {
    for (const onSuccess of ["clear", "refund", "keep"] as const) {
      const { throttle, attempt } = setup({
        lock: undefined,
        freeAttempts: 2,
        onSuccess,
        code: "RATE_LIMITED",
      });
      for (let i = 0; i < 10; i++) await (await throttle.attempt("ada")).abandoned();
      expect(await attempt("ada"), onSuccess).toBe("ok");
      expect(await attempt("ada"), onSuccess).toBe("ok");
      expect(await attempt("ada"), onSuccess).toMatch(/^RATE_LIMITED/);
    }
  });

  it("attempt - counted, then the lock cannot be read: the store's failure, and the hit given back", async () => {
    const { throttle, attempt, cooldowns, play } = setup();
    for (let i = 0; i < 5; i++) await attempt();
    const acquire = cooldowns.acquire;
    cooldowns.acquire = () => Promise.reject(new Error("store gone"));
    for (let i = 0; i < 10; i++) {
      const failed = await throttle.attempt("ada").then(
        () => "ok",
        (error: { code?: string }) => error.code,
      );
      expect(failed).toBe("EMAIL_COOLDOWN_CACHE_FAILURE");
    }
    cooldowns.acquire = acquire;
    // The sixth attempt is still the first past the budget: it starts the first lock, 30 s,
    // which lets one attempt through when it ends.
    await play(["LOGIN_THROTTLED 30", 30_000, "ok"]);
  });
});
