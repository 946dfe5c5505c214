import {
  type AuditEntry,
  type AuditLinks,
  type AuditLogStore,
  type AuditQuery,
  auditDraftOf,
  auditEntryOf,
  type Clock,
  systemClock,
} from "@portcullis/core";
import type { Sweepable } from "./expiring-map.js";

export type MemoryAuditLogStore = AuditLogStore & Sweepable;

export interface MemoryAuditLogStoreOptions {
  /** Time source for `sweep`; tests pass a fake clock. Default: the system clock. */
  clock?: Clock;
  /**
   * How many entries the store holds at most (default 100 000): past it, each append drops the
   * oldest (lowest `seq`) as a sweep would, the chains' heads staying where they are.
   */
  maxEntries?: number;
}

/** The most entries one `list` returns, whatever its `limit`. */
const LIST_LIMIT = 1_000;
const DEFAULT_MAX_ENTRIES = 100_000;

/** Entries in ascending `seq`, dropped from the front in O(1) (amortized) and searched by `seq`. */
class SeqLog {
  private items: AuditEntry[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  push(entry: AuditEntry): void {
    this.items.push(entry);
  }

  /** The oldest entry, or undefined when empty. */
  first(): AuditEntry | undefined {
    return this.items[this.start];
  }

  dropFirst(): void {
    this.start += 1;
    if (this.start > 1_024 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }

  /** Keeps the entries `keep` accepts; returns how many went. */
  retain(keep: (entry: AuditEntry) => boolean): number {
    const before = this.length;
    this.items = this.items.slice(this.start).filter(keep);
    this.start = 0;
    return before - this.items.length;
  }

  /** The index of the first entry with `seq` > `seq` (this.items.length when none). */
  private firstAfter(seq: number): number {
    let low = this.start;
    let high = this.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.items[middle] as AuditEntry).seq <= seq) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Up to `limit` entries `match` accepts, in `order`, past the `afterSeq` cursor. */
  select(query: AuditQuery, match: (entry: AuditEntry) => boolean, limit: number): AuditEntry[] {
    const found: AuditEntry[] = [];
    const cursor = query.afterSeq;
    if (query.order === "asc") {
      const from = cursor === undefined ? this.start : this.firstAfter(cursor);
      for (let index = from; index < this.items.length && found.length < limit; index++) {
        const entry = this.items[index] as AuditEntry;
        if (match(entry)) found.push(entry);
      }
    } else {
      const end = cursor === undefined ? this.items.length : this.firstAfter(cursor - 1);
      for (let index = end - 1; index >= this.start && found.length < limit; index--) {
        const entry = this.items[index] as AuditEntry;
        if (match(entry)) found.push(entry);
      }
    }
    return found;
  }
}

const matches = (query: AuditQuery) => (entry: AuditEntry) =>
  (query.type === undefined || entry.type === query.type) &&
  (query.actorId === undefined || entry.actorId === query.actorId) &&
  (query.from === undefined || entry.at >= query.from) &&
  (query.to === undefined || entry.at < query.to);

/**
 * The audit log in one process's memory: every entry in `seq` order, and each organization's
 * entries indexed apart so its listing walks only its own. The deployment's head (`seq`, hash)
 * and each organization's head hash live beside the entries and outlive them (a sweep or the
 * `maxEntries` cap never moves a head), so the chains continue across removals. `append` runs
 * without an await: it seals every draft first, then stores them all, so concurrent appends
 * are serialized and a `seal` that throws leaves nothing behind. Memory is bounded by
 * `maxEntries` plus one head hash per organization that ever had an entry. `sweep` (run by
 * `createMemoryStores`' sweeper) applies, on the store's clock, the retention the last
 * `sweepAudit` used. Entries go in and come out as copies.
 */
export function createMemoryAuditLogStore(options: MemoryAuditLogStoreOptions = {}): MemoryAuditLogStore {
  const clock = options.clock ?? systemClock;
  const maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
  const all = new SeqLog();
  const byOrganization = new Map<string, SeqLog>();
  const head = { seq: 0, hash: "" };
  const organizationHeads = new Map<string, string>();
  let lastRetentionMs: number | undefined;

  const store = (entry: AuditEntry) => {
    all.push(entry);
    if (entry.organizationId === null) return;
    const log = byOrganization.get(entry.organizationId) ?? new SeqLog();
    byOrganization.set(entry.organizationId, log);
    log.push(entry);
  };
  const dropOldest = () => {
    const oldest = all.first();
    if (!oldest) return;
    all.dropFirst();
    if (oldest.organizationId === null) return;
    const log = byOrganization.get(oldest.organizationId);
    log?.dropFirst(); // the deployment's oldest is its organization's oldest too
    if (log?.length === 0) byOrganization.delete(oldest.organizationId);
  };
  const removeOlder = (olderThan: number) => {
    const keep = (entry: AuditEntry) => entry.at >= olderThan;
    for (const [organizationId, log] of byOrganization) {
      log.retain(keep);
      if (log.length === 0) byOrganization.delete(organizationId);
    }
    return all.retain(keep);
  };

  return {
    async append(drafts, seal) {
      const sealed: AuditEntry[] = [];
      let seq = head.seq;
      let prevHash = head.hash;
      const heads = new Map<string, string>();
      for (const given of drafts) {
        const draft = auditDraftOf(given);
        const organizationId = draft.organizationId;
        const orgPrevHash =
          organizationId === null
            ? null
            : (heads.get(organizationId) ?? organizationHeads.get(organizationId) ?? "");
        const links: AuditLinks = { seq: seq + 1, prevHash, orgPrevHash };
        const hash = seal({ ...draft }, { ...links });
        sealed.push(auditEntryOf(draft, links, hash));
        seq += 1;
        prevHash = hash;
        if (organizationId !== null) heads.set(organizationId, hash);
      }
      // Every seal succeeded: from here on nothing can throw, so all the drafts land.
      for (const entry of sealed) store(entry);
      head.seq = seq;
      head.hash = prevHash;
      for (const [organizationId, hash] of heads) organizationHeads.set(organizationId, hash);
      while (all.length > maxEntries) dropOldest();
      return sealed.map((entry) => ({ ...entry }));
    },
    async list(query) {
      const log = query.organizationId === undefined ? all : byOrganization.get(query.organizationId);
      if (!log) return [];
      const limit = Math.max(0, Math.min(query.limit, LIST_LIMIT));
      return log.select(query, matches(query), limit).map((entry) => ({ ...entry }));
    },
    async sweepAudit(olderThan) {
      lastRetentionMs = Math.max(0, clock.now() - olderThan);
      return removeOlder(olderThan);
    },
    sweep() {
      return lastRetentionMs === undefined ? 0 : removeOlder(clock.now() - lastRetentionMs);
    },
    size: () => all.length,
  };
}
