import type { Clock } from "@portcullis/core";

/** A `Clock` the test moves itself: no test waits in real time. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Jumps to the epoch milliseconds `ms`. */
  set(ms: number): void;
}

export interface FakeClockOptions {
  /** Epoch milliseconds the clock starts at. Default: 2026-06-01T12:00:00Z. */
  start?: number;
  /**
   * Milliseconds every reading moves the clock by (default 0). With 1, events keep their order and
   * a cooldown reads the same whole seconds on every run, however slow the machine is.
   */
  tick?: number;
}

export const FAKE_CLOCK_START = Date.UTC(2026, 5, 1, 12);

export function createFakeClock({ start = FAKE_CLOCK_START, tick = 0 }: FakeClockOptions = {}): FakeClock {
  let now = start;
  return {
    now() {
      const reading = now;
      now += tick;
      return reading;
    },
    advance(ms) {
      now += ms;
    },
    set(ms) {
      now = ms;
    },
  };
}
