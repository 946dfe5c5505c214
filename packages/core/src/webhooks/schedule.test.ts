import { describe, expect, it } from "vitest";
import { nextAttemptAt, WEBHOOK_RETRY_DELAYS_MS } from "./schedule.js";

describe("webhook retry schedule", () => {
  it("WEBHOOK_RETRY_DELAYS_MS - from 5 seconds to hours, growing, about 72 hours in all", () => {
    expect(WEBHOOK_RETRY_DELAYS_MS[0]).toBe(5_000);
    const hours = WEBHOOK_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) / 3600_000;
    expect(hours).toBeGreaterThan(70);
    expect(hours).toBeLessThanOrEqual(72);
    for (let i = 1; i < WEBHOOK_RETRY_DELAYS_MS.length; i++)
      expect(WEBHOOK_RETRY_DELAYS_MS[i]).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[i - 1] ?? 0);
  });

  it("nextAttemptAt - the wait after the n-th failed attempt, scaled; null once the back-off is used up", () => {
    expect(nextAttemptAt(1, 1_000, 1)).toBe(6_000);
    expect(nextAttemptAt(2, 1_000, 1)).toBe(301_000);
    expect(nextAttemptAt(2, 1_000, 0.001)).toBe(1_300);
    expect(nextAttemptAt(1, 1_000, 0.000001)).toBe(1_001);
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS.length, 0, 1)).toBe(20 * 3600_000);
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS.length + 1, 0, 1)).toBeNull();
    expect(nextAttemptAt(0, 0, 1)).toBeNull();
  });
});
