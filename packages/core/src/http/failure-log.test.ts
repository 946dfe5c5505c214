import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "../ports/logger.js";
import { createFailureLog, MAX_COUNTED_CAUSES } from "./failure-log.js";

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const record = (fields: object) => {
    lines.push({ ...fields });
  };
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  return { logger, lines };
}

const REFUSED = { code: "DATABASE_FAILURE", path: "/api/auth/login", err: "Error: connect ECONNREFUSED" };

describe("failure log", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("log - the first failure of a cause at once, then one line per 10 s with the count", () => {
    const { logger, lines } = recordingLogger();
    const log = createFailureLog(logger);
    // A 10 s outage at 2,000 failing requests a second.
    for (let ms = 0; ms < 10_000; ms += 10) {
      for (let i = 0; i < 20; i++) log(REFUSED);
      vi.advanceTimersByTime(10);
    }
    expect(lines).toEqual([
      { event: "request.failed", ...REFUSED, count: 1 },
      { event: "request.failed", ...REFUSED, count: 19_999 },
    ]);
    // An interval without the cause forgets it: the next failure is logged at once.
    vi.advanceTimersByTime(20_000);
    log({ ...REFUSED, path: "/api/auth/me" });
    expect(lines.at(-1)).toEqual({ event: "request.failed", ...REFUSED, path: "/api/auth/me", count: 1 });
    expect(lines).toHaveLength(3);
  });

  it("log - causes are counted apart by code and error", () => {
    const { logger, lines } = recordingLogger();
    const log = createFailureLog(logger);
    const timeout = { ...REFUSED, err: "Error: Query read timeout" };
    const cache = { ...REFUSED, code: "EMAIL_COOLDOWN_CACHE_FAILURE" };
    for (let i = 0; i < 3; i++) for (const failure of [REFUSED, timeout, cache]) log(failure);
    expect(lines.map((line) => [line.code, line.err, line.count])).toEqual([
      ["DATABASE_FAILURE", REFUSED.err, 1],
      ["DATABASE_FAILURE", timeout.err, 1],
      ["EMAIL_COOLDOWN_CACHE_FAILURE", REFUSED.err, 1],
    ]);
    vi.advanceTimersByTime(10_000);
    expect(lines.slice(3).map((line) => line.count)).toEqual([2, 2, 2]);
  });

  it("log - memory stays bounded: past the counted causes, every failure gets its own line", () => {
    const { logger, lines } = recordingLogger();
    const log = createFailureLog(logger);
    for (let i = 0; i < MAX_COUNTED_CAUSES + 50; i++) log({ ...REFUSED, err: `Error: id ${i}` });
    expect(log.countedCauses()).toBe(MAX_COUNTED_CAUSES);
    log({ ...REFUSED, err: "Error: id 120" });
    log({ ...REFUSED, err: "Error: id 120" });
    expect(lines).toHaveLength(MAX_COUNTED_CAUSES + 52);
    vi.advanceTimersByTime(20_000);
    expect(log.countedCauses()).toBe(0);
  });
});
