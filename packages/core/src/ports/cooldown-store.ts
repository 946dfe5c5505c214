/** What `CooldownStore.acquire` answers. */
export interface CooldownAcquireResult {
  /** True when this call started the cooldown; false when one was already running. */
  acquired: boolean;
  /** Milliseconds left of the running cooldown: `ttlMs` when acquired, what remains otherwise. */
  remainingMs: number;
}

/**
 * Per-key cooldowns (email sends, throttles). Keys are opaque strings built by the core. Every
 * method rejects only when the store itself fails (reported as `EMAIL_COOLDOWN_CACHE_FAILURE`).
 */
export interface CooldownStore {
  /**
   * Starts a cooldown of `ttlMs` milliseconds on `key` unless one is running. Must be atomic:
   * of any number of concurrent calls on one key, exactly one acquires.
   */
  acquire(key: string, ttlMs: number): Promise<CooldownAcquireResult>;
  /** Milliseconds left on `key`'s cooldown; 0 when none runs. */
  remainingMs(key: string): Promise<number>;
  /** Ends `key`'s cooldown at once (used when the guarded action failed). No-op when none runs. */
  release(key: string): Promise<void>;
  /**
   * Adds one to the counter on `key` and returns the new count. The counter expires `ttlMs`
   * milliseconds after it was created (later hits do not extend it). Must be atomic.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /** The counter on `key`; 0 when absent or expired. */
  count(key: string): Promise<number>;
  /** Removes `key`'s counter. No-op when absent. */
  resetCount(key: string): Promise<void>;
}
