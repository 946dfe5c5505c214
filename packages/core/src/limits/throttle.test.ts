import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { CooldownError } from "../errors.js";
import { createThrottle, type ThrottlePolicy } from "./throttle.js";

function setup(policy: Partial<ThrottlePolicy> = {}) {
  let now = Date.UTC(2026, 0, 1);
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const { cooldowns } = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const throttle = createThrottle(cooldowns, {
    name: "test",
    code: "LOGIN_THROTTLED",
    freeAttempts: 5,
    windowMs: 3_600_000,
    lock: { baseMs: 30_000, maxMs: 900_000 },
    onSuccess: "clear",
    ...policy,
  });
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
  return { throttle, clock, attempt };
}

describe("throttle", () => {
  it("attempt - the budget, then a lock that lets one attempt through when it ends and doubles", async () => {
    const { clock, attempt } = setup();
    for (let i = 0; i < 5; i++) expect(await attempt()).toBe("ok");
    expect(await attempt()).toBe("LOGIN_THROTTLED 30");
    expect(await attempt()).toBe("LOGIN_THROTTLED 30");
    clock.advance(30_000);
    expect(await attempt()).toBe("ok");
    // Every attempt counts, refused ones too: 8 hits → 2^(8-5-1) × 30 s.
    expect(await attempt()).toBe("LOGIN_THROTTLED 120");
    clock.advance(120_000);
    expect(await attempt("ada", true)).toBe("ok");
    expect(await attempt()).toBe("ok");
  });

  it("attempt - locks never pass maxMs and end: not a permanent lock", async () => {
    const { clock, attempt } = setup();
    for (let i = 0; i < 60; i++) await attempt();
    expect(await attempt()).toBe("LOGIN_THROTTLED 30");
    clock.advance(30_000);
    expect(await attempt()).toBe("ok");
    expect(await attempt()).toBe("LOGIN_THROTTLED 900");
    clock.advance(3_600_000);
    expect(await attempt()).toBe("ok");
  });

  it("attempt - 35 concurrent attempts let exactly the budget through", async () => {
    const { attempt } = setup();
    const results = await Promise.all(Array.from({ length: 35 }, () => attempt()));
    expect(results.filter((result) => result === "ok")).toHaveLength(5);
  });

  it("attempt - still exactly the budget when the store answers out of order (attempt 7 reaches the lock before 6)", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { cooldowns } = createMemoryStores({ clock: { now: () => now }, sweepIntervalMs: 0 });
    let delayed = false;
    const slow: typeof cooldowns = {
      ...cooldowns,
      async acquire(key, ttlMs) {
        if (!delayed && key.includes(":lock:")) {
          delayed = true;
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        return cooldowns.acquire(key, ttlMs);
      },
    };
    const throttle = createThrottle(slow, {
      name: "race",
      code: "LOGIN_THROTTLED",
      freeAttempts: 5,
      windowMs: 3_600_000,
      lock: { baseMs: 30_000, maxMs: 900_000 },
      onSuccess: "clear",
    });
    const results = await Promise.all(
      Array.from({ length: 35 }, () =>
        throttle.attempt("ada").then(
          () => "ok",
          (error) => error.code,
        ),
      ),
    );
    expect(results.filter((result) => result === "ok")).toHaveLength(5);
    now += 30_000;
    expect(await throttle.attempt("ada").then(() => "ok")).toBe("ok");
  });

  it("attempt - subjects are counted apart; clear forgets one subject's count and lock", async () => {
    const { throttle, attempt } = setup();
    for (let i = 0; i < 6; i++) await attempt("ada");
    expect(await attempt("grace")).toBe("ok");
    await throttle.clear("ada");
    expect(await attempt("ada")).toBe("ok");
  });

  it("attempt - without a lock, a fixed window: refused until it ends, Retry-After is what is left of it", async () => {
    const { clock, attempt } = setup({
      lock: undefined,
      freeAttempts: 2,
      windowMs: 60_000,
      code: "RATE_LIMITED",
    });
    expect(await attempt()).toBe("ok");
    clock.advance(20_000);
    expect(await attempt()).toBe("ok");
    expect(await attempt()).toBe("RATE_LIMITED 40");
    clock.advance(40_000);
    expect(await attempt()).toBe("ok");
  });

  it("succeeded - refund gives one attempt back; keep does not", async () => {
    const refund = setup({ lock: undefined, freeAttempts: 2, onSuccess: "refund" });
    for (let i = 0; i < 5; i++) expect(await refund.attempt("ip", true)).toBe("ok");
    const keep = setup({ lock: undefined, freeAttempts: 2, onSuccess: "keep", code: "RATE_LIMITED" });
    expect(await keep.attempt("ip", true)).toBe("ok");
    expect(await keep.attempt("ip", true)).toBe("ok");
    expect(await keep.attempt("ip", true)).toMatch(/^RATE_LIMITED/);
  });
});
