import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "./with-timeout.js";

describe("withTimeout", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("withTimeout - settles as the promise does when it is in time, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    await expect(withTimeout(Promise.resolve(42), 1_000, "late")).resolves.toBe(42);
    const failure = new Error("refused");
    await expect(withTimeout(Promise.reject(failure), 1_000, "late")).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("withTimeout - rejects with the message once the time passes, and a late answer changes nothing", async () => {
    vi.useFakeTimers();
    let answer: (value: string) => void = () => {};
    const slow = new Promise<string>((resolve) => {
      answer = resolve;
    });
    const bounded = withTimeout(slow, 500, "Redis did not answer within 500 ms");
    const outcome = expect(bounded).rejects.toThrow("Redis did not answer within 500 ms");
    await vi.advanceTimersByTimeAsync(499);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
    answer("too late");
    await expect(bounded).rejects.toThrow("Redis did not answer within 500 ms");
  });

  it("withTimeout - a rejection after the time has passed is not left unhandled", async () => {
    vi.useFakeTimers();
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      let fail: (error: Error) => void = () => {};
      const slow = new Promise<never>((_, reject) => {
        fail = reject;
      });
      const outcome = expect(withTimeout(slow, 5, "late")).rejects.toThrow("late");
      await vi.advanceTimersByTimeAsync(5);
      await outcome;
      fail(new Error("after the timeout"));
      // Node reports an unhandled rejection once the microtasks of the current turn have run:
      // by the next turn of the event loop (a real one: node:timers is not faked) it has.
      await nextTurn();
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });
});
