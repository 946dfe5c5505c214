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

/**
 * Keys that expire, with nothing else to hold (the cooldowns): each key maps straight to its end,
 * without an entry object per key (a million cooldowns take 127 MB of heap, against 165 MB with
 * an `ExpiringMap` entry per key). Ends are on the clock made monotonic: a step back of the clock
 * is added to every later reading, so time goes on from where it was, and a running cooldown keeps
 * what it had left before the correction: never more than its length.
 */
export class ExpiringKeys {
  readonly #ends = new Map<string, number>();
  readonly #clock: Clock;
  /** What the clock was set back by, in all. */
  #setBackMs = 0;
  /** The latest time read. */
  #latest = Number.NEGATIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The clock's time plus every step back it made. */
  #now(): number {
    const now = this.#clock.now() + this.#setBackMs;
    if (now >= this.#latest) {
      this.#latest = now;
      return now;
    }
    this.#setBackMs += this.#latest - now;
    return this.#latest;
  }

  /** Milliseconds until `key` expires; 0 when absent or expired (an expired key is dropped). */
  ttlMs(key: string): number {
    const end = this.#ends.get(key);
    if (end === undefined) return 0;
    const left = end - this.#now();
    if (left > 0) return left;
    this.#ends.delete(key);
    return 0;
  }

  add(key: string, ttlMs: number): void {
    this.#ends.set(key, this.#now() + ttlMs);
  }

  delete(key: string): boolean {
    return this.#ends.delete(key);
  }

  sweep(): number {
    return removeExpired(this.#ends, this.#now(), (end) => end);
  }

  get size(): number {
    return this.#ends.size;
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
