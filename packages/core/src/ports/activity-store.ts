/** One entry of a user's activity: a security event, as the account's owner may see it. */
export interface ActivityRecord {
  /**
   * Unique per entry, minted by the core: lowercase hex, every id of one length, so it compares
   * alike in every store and orders entries of the same `at` (greater is newer).
   */
  id: string;
  /** The account the event concerns. */
  userId: string;
  /** The `SecurityEventType` of the event (`login.succeeded`, `two_factor.enabled`, …). */
  type: string;
  /** When it happened, in milliseconds since the Unix epoch (the core's clock). */
  at: number;
  /** The client IP as resolved under `trustProxy`; null when unknown. */
  ip: string | null;
  /** Browser and OS from the request's User-Agent; null when unknown. */
  browser: string | null;
  os: string | null;
  /** The event's reason (a sign-in's method, a failure's cause); never a secret. Null when none. */
  reason: string | null;
}

/** Where a page of a user's activity starts: strictly older than this entry (`at`, then `id`). */
export interface ActivityPosition {
  at: number;
  id: string;
}

export interface ActivityListOptions {
  /** Only entries older than this position (the last entry of the previous page); absent: from the newest. */
  before?: ActivityPosition | undefined;
  /** At most this many entries (≥ 1). */
  limit: number;
  /** Only entries with `at` ≥ this instant (ms); the core passes now less the retention. */
  since?: number | undefined;
}

/**
 * Each user's security events (`GET /activity`), newest first. Entries are written once and
 * never changed. The core lists only entries within the retention (`since`); a store forgets
 * older ones by itself, without a job of the host's: on a later write (entries more than
 * `retentionMs` older than the written one), by key expiry, or on a schedule of its own. Every
 * method rejects only when the store itself fails. Instants are milliseconds since the epoch.
 */
export interface ActivityStore {
  /**
   * Adds `entry`. Concurrent calls, for one user or many, must all land (none overwrites
   * another). `retentionMs` is how long entries are kept: entries with `at` before
   * `entry.at - retentionMs` are dropped now or later (the user's at least; a store may sweep
   * every user's then). A store may also keep only a user's newest entries up to a cap of its
   * own (documented by the store).
   */
  record(entry: ActivityRecord, retentionMs: number): Promise<void>;
  /**
   * Optional: `record` of every entry of `entries` (one or more, of one user or many) in one step
   * where the store can (store-sql: one INSERT), with the same retention. The core then writes the
   * entries of one turn together, one batch in flight at a time. All land or the call rejects.
   */
  recordMany?(entries: readonly ActivityRecord[], retentionMs: number): Promise<void>;
  /**
   * The user's entries, newest first: ordered by `at` descending, then `id` descending; `[]`
   * when none. Never another user's entries.
   */
  list(userId: string, options: ActivityListOptions): Promise<ActivityRecord[]>;
  /** Removes every entry of the user (account deletion); resolves to how many went. */
  deleteUserActivity(userId: string): Promise<number>;
  /** Removes every entry, of any user, with `at` < `olderThan`; resolves to how many went. */
  sweepActivity(olderThan: number): Promise<number>;
}
