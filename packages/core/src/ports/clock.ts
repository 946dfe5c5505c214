/** Injectable time, so tests can move it instead of sleeping. */
export interface Clock {
  /** The current time in milliseconds since the Unix epoch (like `Date.now()`). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
