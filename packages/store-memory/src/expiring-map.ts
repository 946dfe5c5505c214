import type { Clock } from "@portcullis/core";

/** What a memory store of expiring entries adds to its port. */
export interface Sweepable {
  /** Removes expired entries (and what indexes them); returns how many. Runs on the sweeper's interval too. */
  sweep(): number;
  /** Entries held, including expired ones not yet swept (for tests and diagnostics). */
  size(): number;
}

/**
 * A map whose entries expire: reads treat expired entries as absent (and drop them), and
 * `sweep` removes every expired entry so memory stays bounded without reads.
 */
export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Milliseconds until `key` expires; 0 when absent or expired. */
  ttlMs(key: string): number {
    const entry = this.#entries.get(key);
    if (entry === undefined) return 0;
    return Math.max(0, entry.expiresAt - this.#clock.now());
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
  }

  /** Moves `key`'s end to `maxMs` from now when it is further away (the clock was set back). */
  cap(key: string, maxMs: number): void {
    const entry = this.#entries.get(key);
    const latest = this.#clock.now() + maxMs;
    if (entry !== undefined && entry.expiresAt > latest) entry.expiresAt = latest;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  sweep(): number {
    return removeExpired(this.#entries, this.#clock.now(), (entry) => entry.expiresAt);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Deletes the entries whose expiry is past; returns how many. */
function removeExpired<E>(entries: Map<string, E>, now: number, expiresAt: (entry: E) => number): number {
  let removed = 0;
  for (const [key, entry] of entries) {
    if (expiresAt(entry) <= now) {
      entries.delete(key);
      removed += 1;
    }
  }
  return removed;
}
