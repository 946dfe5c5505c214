import type { Logger } from "../ports/logger.js";

/** How long the failures of one cause are counted before the next line (docs/deploying.md). */
export const FAILURE_LOG_INTERVAL_MS = 10_000;
/** Causes counted at once; past it, failures of a new cause are logged one line each. */
export const MAX_COUNTED_CAUSES = 100;

/** One failed request, as `request.failed` reports it. */
export interface FailedRequest {
  code: string;
  path: string;
  /** The cause, one line (no stack). */
  err: string | undefined;
}

interface Counted {
  /** Failures since the last line. */
  count: number;
  /** The path of the latest of them. */
  path: string;
}

export interface FailureLog {
  (failure: FailedRequest): void;
  /** Causes being counted now (at most `MAX_COUNTED_CAUSES`). */
  countedCauses(): number;
}

/**
 * The `request.failed` error lines of a handler, one per cause (code and error message) per
 * interval: the first failure of a cause is logged at once (`count: 1`); later ones within
 * `intervalMs` are only counted, and when the interval ends one line carries how many there were
 * (`count`) with the latest path, and counting goes on for another interval. An interval without
 * a failure of the cause forgets it, so the next one is logged at once again. An outage of 10 s
 * with 2,000 failing requests a second logs 2 lines per cause, not 20,000.
 */
export function createFailureLog(logger: Logger, intervalMs = FAILURE_LOG_INTERVAL_MS): FailureLog {
  const counting = new Map<string, Counted>();

  const endInterval = (key: string, failure: FailedRequest) => {
    const counted = counting.get(key);
    if (!counted) return;
    if (counted.count === 0) {
      counting.delete(key);
      return;
    }
    logger.error(
      {
        event: "request.failed",
        code: failure.code,
        path: counted.path,
        err: failure.err,
        count: counted.count,
      },
      "requests failed",
    );
    counted.count = 0;
    schedule(key, failure);
  };
  const schedule = (key: string, failure: FailedRequest) => {
    const timer = setTimeout(() => endInterval(key, failure), intervalMs);
    // The timer never keeps a process alive: at exit, the count of the last interval is lost.
    (timer as { unref?: () => void }).unref?.();
  };

  const log = (failure: FailedRequest) => {
    const key = `${failure.code}\u0000${failure.err}`;
    const counted = counting.get(key);
    if (counted) {
      counted.count += 1;
      counted.path = failure.path;
      return;
    }
    logger.error({ event: "request.failed", ...failure, count: 1 }, "request failed");
    if (counting.size >= MAX_COUNTED_CAUSES) return;
    counting.set(key, { count: 0, path: failure.path });
    schedule(key, failure);
  };
  return Object.assign(log, { countedCauses: () => counting.size });
}
