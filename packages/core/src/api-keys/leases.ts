import { createLru, type Lru } from "../support/bounded-memo.js";

/**
 * One key's counts that this instance holds in the store's current window (docs/api-keys.md,
 * "Counted in blocks"): a block taken with `ApiKeyStore.useApiKey` and handed out to the next
 * requests here, and counts that refused requests gave back.
 */
interface Lease {
  /** When the store's window ends, on this instance's clock (ms). */
  endsAt: number;
  /** The next count of the block to hand out (past `last`: the block is used up). */
  next: number;
  /** The block's last count. */
  last: number;
  /** Counts that refused requests gave back, handed out again first. */
  returned: number[];
  /** The highest count the store answered in this window. */
  highest: number;
  /** The size of the block taken last (the next is twice as large, up to the most). */
  size: number;
  /** Whether a block is being taken now (the requests meanwhile ask for 1 each, not for more blocks). */
  taking: boolean;
  /** Past the limit: when a request asks the store again (counts given back may have made room). */
  recheckAt: number;
}

/**
 * What a request gets: a count this instance holds (`count`, the window's end), or what to ask the
 * store for (`uses` counts; `block` when it is the lease's next block rather than one request's).
 */
export type Taken = { count: number; endsAt: number } | { uses: number; block: boolean };

/** The count of a request refused here, past the limit, without the store: counted nowhere. */
export const PAST_LIMIT = Number.POSITIVE_INFINITY;

/** The keys whose counts one instance holds at most (the least recently used is dropped: its counts stay used). */
const MAX_LEASES = 10_000;
/** The largest block, whatever the limit. */
const MAX_BLOCK = 1_000;
/**
 * Past the limit, how often one request asks the store again (ms): counts that refused requests
 * gave back to the store (`returnApiKeyUses`) may have made room. One store write a second per key
 * and instance at most, while the window lasts.
 */
export const RECHECK_MS = 1_000;

/** An instance's counts per lookupId, for keys of at most `limit` requests a window. */
export interface Leases {
  take(lookupId: string, now: number): Taken;
  /**
   * What the store answered for what `take` asked (`total`: the count after its `uses`): the
   * request's count and its window's end, the rest of a block held for the next requests.
   */
  grant(
    lookupId: string,
    asked: { uses: number; block: boolean },
    total: number,
    endsAt: number,
    now: number,
  ): { count: number; endsAt: number };
  /** The store failed on what `take` asked: the next request may ask for a block again. */
  abandon(lookupId: string, asked: { block: boolean }): void;
  /**
   * A refused request's count (of the window ending at `endsAt`), handed out again here while
   * that window lasts, while what this instance holds (these and its block's rest) is less than a
   * block; past that, or for a count the store gave past the limit, 1: the count to give back to the store
   * (`ApiKeyStore.returnApiKeyUses`), so that refusals on one instance never use up what the
   * others may count. 0 when it is kept, or belongs to no window to give back to.
   */
  giveBack(lookupId: string, count: number, endsAt: number, now: number): 0 | 1;
}

/**
 * Counts in blocks (one instance's). The first request of a window asks the store for 1, as
 * without blocks; once the counts held are used up, the next block is twice the last, up to a
 * twentieth of `limit` (so 1 for a limit under 40: a store write per request), so a key used often
 * costs the store one write per block, not per request. Requests that arrive while a block is
 * being taken ask for 1 each. A key past its limit in a window gets counts past it without a write
 * (one request a second asks the store again, for counts given back meanwhile) until the window
 * ends. The limit is never exceeded: every count handed out was counted in the
 * store. What a block holds unused counts as used for the other instances (a twentieth of the
 * limit at most), which reach the limit that much earlier, never later. Refused requests' counts
 * are kept here up to a block's worth; more go back to the store, so refusals on one instance
 * (wrong secrets, which anyone who knows a lookup id can send) never use up the others' share.
 */
export function createLeases(limit: number): Leases {
  const leases: Lru<string, Lease> = createLru(MAX_LEASES);
  const maxBlock = Math.max(1, Math.min(MAX_BLOCK, Math.floor(limit / 20)));
  const live = (lookupId: string, now: number) => {
    const lease = leases.get(lookupId);
    return lease !== undefined && lease.endsAt > now ? lease : undefined;
  };
  return {
    take(lookupId, now) {
      const lease = live(lookupId, now);
      if (lease === undefined) return { uses: 1, block: false };
      const returned = lease.returned.pop();
      if (returned !== undefined) return { count: returned, endsAt: lease.endsAt };
      if (lease.next <= lease.last) return { count: lease.next++, endsAt: lease.endsAt };
      if (lease.highest >= limit) {
        if (now < lease.recheckAt) return { count: PAST_LIMIT, endsAt: lease.endsAt };
        lease.recheckAt = now + RECHECK_MS;
        return { uses: 1, block: false };
      }
      if (lease.taking) return { uses: 1, block: false };
      lease.taking = true;
      return { uses: Math.min(lease.size * 2, maxBlock), block: true };
    },
    grant(lookupId, asked, total, endsAt, now) {
      const first = total - asked.uses + 1;
      let lease = live(lookupId, now);
      if (lease === undefined) {
        lease = {
          endsAt,
          next: 1,
          last: 0,
          returned: [],
          highest: total,
          size: 1,
          taking: false,
          recheckAt: 0,
        };
        leases.set(lookupId, lease);
      }
      // A block's answer only raises it; one request's is the store's latest word (it may have
      // fallen: counts given back), and the store decides every count it answers either way.
      lease.highest = asked.block ? Math.max(lease.highest, total) : total;
      if (asked.block) {
        lease.taking = false;
        lease.size = asked.uses;
        lease.next = first + 1;
        lease.last = total;
      }
      return { count: first, endsAt: lease.endsAt };
    },
    abandon(lookupId, asked) {
      const lease = leases.get(lookupId);
      if (asked.block && lease !== undefined) lease.taking = false;
    },
    giveBack(lookupId, count, endsAt, now) {
      const lease = live(lookupId, now);
      if (count === PAST_LIMIT || lease === undefined || lease.endsAt !== endsAt) return 0;
      // Counted in the store past the limit: of no use here, but it holds the store's count up.
      if (count > limit) return 1;
      // What this instance holds (given back, and the rest of its block) stays within one block.
      if (lease.returned.length + Math.max(0, lease.last - lease.next + 1) >= maxBlock) return 1;
      lease.returned.push(count);
      return 0;
    },
  };
}
