/**
 * Which keys each owner holds (a user's sessions, a user's tokens of one purpose), so revoking
 * them never scans the whole store. Empty owners are dropped.
 */
export class OwnerIndex {
  readonly #byOwner = new Map<string, Set<string>>();

  add(owner: string, key: string): void {
    let keys = this.#byOwner.get(owner);
    if (!keys) {
      keys = new Set();
      this.#byOwner.set(owner, keys);
    }
    keys.add(key);
  }

  remove(owner: string, key: string): void {
    const keys = this.#byOwner.get(owner);
    keys?.delete(key);
    if (keys?.size === 0) this.#byOwner.delete(owner);
  }

  /** A copy of the owner's keys: callers remove entries while they walk it. */
  keys(owner: string): string[] {
    return [...(this.#byOwner.get(owner) ?? [])];
  }

  deleteOwner(owner: string): void {
    this.#byOwner.delete(owner);
  }

  /** Drops the keys `isLive` says are gone (after a sweep of the entries they point at). */
  prune(isLive: (key: string) => boolean): void {
    for (const [owner, keys] of this.#byOwner) {
      for (const key of keys) if (!isLive(key)) keys.delete(key);
      if (keys.size === 0) this.#byOwner.delete(owner);
    }
  }

  get size(): number {
    return this.#byOwner.size;
  }
}
