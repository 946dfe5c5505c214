/** What `CooldownStore.acquire` answers. */
export interface CooldownAcquireResult {
  /** True when this call started the cooldown; false when one was already running. */
  acquired: boolean;
  /** Milliseconds left of the running cooldown: `ttlMs` when acquired, what remains otherwise. */
  remainingMs: number;
}

/** What `CooldownStore.hit` answers. */
export interface CooldownHitResult {
  /** The counter after this hit: 1 for the first hit of a window. */
  count: number;
  /** Milliseconds left of the counter's window (> 0). */
  remainingMs: number;
}

/**
 * Per-key cooldowns (email sends, locks) and attempt counters (throttles). Keys are opaque
 * strings built by the core; cooldowns and counters may share a key without touching each
 * other. Every method rejects only when the store itself fails (reported as
 * `EMAIL_COOLDOWN_CACHE_FAILURE`). An `acquire` or `hit` that rejected for a timeout must not
 * take effect later (a hung server that resumes runs what was queued): the throttles give back
 * only the attempts they were told were counted. Durations are milliseconds.
 *
 * A store keeps each cooldown's end (a deadline on its clock) with the length it was started
 * with, and each counter window's end. A clock set back after a forward jump leaves an end
 * further away than that length: `acquire` and `remainingMs` then move a cooldown's end to its
 * own length from now, and `hit` a window's end to `windowMs` from now, so a cooldown, lock or
 * window never lasts longer than its configured length, whatever the clock did. (A store may
 * instead measure on a clock it keeps monotonic, as the memory store's cooldowns do: a running
 * cooldown then keeps what it had left, which is never more than its length either.)
 */
export interface CooldownStore {
  /**
   * Starts a cooldown of `ttlMs` milliseconds on `key` unless one is running. Must be atomic:
   * of any number of concurrent calls on one key, exactly one acquires. A running cooldown whose
   * end is further away than the length it was started with (the clock was set back) has its end
   * moved to that length from now (its own length, not this call's `ttlMs`: a refused call never
   * shortens a longer cooldown), and `remainingMs` answers that.
   */
  acquire(key: string, ttlMs: number): Promise<CooldownAcquireResult>;
  /**
   * Milliseconds left on `key`'s cooldown; 0 when none runs. Never more than the length it was
   * started with: a further end is moved, as in `acquire`.
   */
  remainingMs(key: string): Promise<number>;
  /** Ends `key`'s cooldown at once (used when the guarded action failed). No-op when none runs. */
  release(key: string): Promise<void>;
  /**
   * Counts one attempt on `key` and returns the new count, in one atomic operation: of N
   * concurrent hits on a fresh key, each of the counts 1…N is returned exactly once. The first
   * hit opens a window of `windowMs` milliseconds; later hits do not extend it; when it ends the
   * counter is gone and the next hit counts 1 again. A window whose end is more than `windowMs`
   * away (the clock was set back) has its end moved to `windowMs` from now.
   */
  hit(key: string, windowMs: number): Promise<CooldownHitResult>;
  /**
   * Gives one earlier hit back (an attempt that turned out legitimate): the count drops by one,
   * never below 0, and the window keeps its end. No-op when the counter is absent or expired.
   */
  refundHit(key: string): Promise<void>;
  /** Removes `key`'s counter. No-op when absent. */
  clearHits(key: string): Promise<void>;
  /**
   * Optional: removes the counters `counterKeys` and ends the cooldowns `cooldownKeys`, as
   * `clearHits` and `release` on each key would, in one call (a store does it in one statement
   * or round trip where it can). Absent keys are no-ops. A throttle's `clear` (a right password
   * forgets the address's counter and its two lock keys) uses it; without it, the core makes
   * the calls one by one.
   */
  clearKeys?(counterKeys: readonly string[], cooldownKeys: readonly string[]): Promise<void>;
}
