/**
 * Who did what an audit entry records: the account itself (`user`), a back-office admin
 * (`admin`), an admin acting as another user (`impersonator`), an API key (`api_key`, `actorId`
 * the key's id), a directory sync (`scim`), the host's own trusted calls (`host`), or Portcullis
 * itself (`system`: limits, expiry, retention).
 */
export type AuditActorType = "user" | "admin" | "impersonator" | "api_key" | "scim" | "host" | "system";

/** An audit entry as the core drafts it, before the store places it in its chains. */
export interface AuditDraft {
  /** Unique per entry, minted by the core (lowercase hex, one length). */
  id: string;
  /** When it happened, in milliseconds since the Unix epoch (the core's clock). */
  at: number;
  /** The `SecurityEventType` of the event (`login.succeeded`, `member.role_changed`, …). */
  type: string;
  actorType: AuditActorType;
  /** The acting user's id, the API key's id, or null for `host` and `system`. */
  actorId: string | null;
  /** The account the event concerns (its target); null when none is known. */
  userId: string | null;
  /** The organization the event belongs to; null for the deployment's own events. */
  organizationId: string | null;
  sessionId: string | null;
  /** The client IP as resolved under `trustProxy`; null when unknown. */
  ip: string | null;
  /** The request's User-Agent (control characters replaced, at most 200 characters); null when unknown. */
  userAgent: string | null;
  /** The event's reason (a failure's cause, a sign-in's method); never a secret. Null when none. */
  reason: string | null;
}

/** Where the store placed a draft: its position and the hashes of the entries before it. */
export interface AuditLinks {
  /** The entry's position in the deployment's chain: 1 for the first entry ever, then +1 each. */
  seq: number;
  /** The `hash` of the deployment's previous entry (seq − 1); "" for the first. */
  prevHash: string;
  /**
   * The `hash` of the previous entry of the same organization; "" for its first; null when the
   * entry has no organization.
   */
  orgPrevHash: string | null;
}

/** A stored audit entry: the draft, its links and its own hash (computed by the core's `seal`). */
export interface AuditEntry extends AuditDraft, AuditLinks {
  /** A keyed hash over every other field (the core's; a store never computes it). */
  hash: string;
}

export interface AuditQuery {
  /** Only this organization's entries; absent: the whole deployment's. */
  organizationId?: string | undefined;
  /** Only entries of this type. */
  type?: string | undefined;
  /** Only entries with this `actorId`. */
  actorId?: string | undefined;
  /** Only entries with `at` ≥ this instant (ms). */
  from?: number | undefined;
  /** Only entries with `at` < this instant (ms). */
  to?: number | undefined;
  /** Newest first (`desc`, by `seq` descending) or oldest first (`asc`). */
  order: "asc" | "desc";
  /** A cursor: only entries with `seq` < this (desc) or > this (asc). */
  afterSeq?: number | undefined;
  /** At most this many entries (1 … 1000). */
  limit: number;
}

/**
 * The audit log (docs/audit-log.md): every security event, kept in two hash chains, the
 * deployment's (every entry, by `seq`) and each organization's (its entries, by `seq`). Entries
 * are written once and never changed; a store forgets those older than the retention only in
 * `sweepAudit`. Every method rejects only when the store itself fails.
 */
export interface AuditLogStore {
  /**
   * Appends `drafts`, in their order, at the end of the deployment's chain and of each one's
   * organization's chain, atomically: for each draft the store takes the next `seq` and the
   * current heads' hashes as its links, calls `seal(draft, links)` for the entry's hash (a pure
   * function, called once per draft), and moves the heads to it. Concurrent appends, from one
   * process or many, never share a `seq` or a previous hash (the chains never fork): a store
   * serializes them (a lock, a transaction, or a compare-and-set it retries, calling `seal`
   * again). All drafts land or none. Resolves to the stored entries in `drafts`' order.
   */
  append(drafts: AuditDraft[], seal: (draft: AuditDraft, links: AuditLinks) => string): Promise<AuditEntry[]>;
  /** The entries that match `query`, ordered by `seq` (`order`), at most `limit`; `[]` when none. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Removes every entry with `at` < `olderThan` (the retention); resolves to how many went. The
   * chains' heads stay, so the next entry still links to the last one written.
   */
  sweepAudit(olderThan: number): Promise<number>;
}
