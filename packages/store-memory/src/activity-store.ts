import { type ActivityRecord, type ActivityStore, type Clock, systemClock } from "@portcullis/core";

export interface MemoryActivityStore extends ActivityStore {
  /** Removes every entry older than the retention last written with; returns how many. */
  sweep(): number;
}

/** Newer first: `at` descending, then `id` descending. */
const newerFirst = (a: ActivityRecord, b: ActivityRecord) =>
  b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Strictly older than `position` in the list's order. */
const olderThan = (entry: ActivityRecord, position: { at: number; id: string }) =>
  entry.at < position.at || (entry.at === position.at && entry.id < position.id);

/**
 * Each user's activity in one process's memory: a list per user kept newest first. A write drops
 * that user's entries more than the retention older than it; `sweep` (run by
 * `createMemoryStores`' sweeper) drops every user's older than the retention on the store's clock.
 */
export function createMemoryActivityStore(options: { clock?: Clock } = {}): MemoryActivityStore {
  const clock = options.clock ?? systemClock;
  const byUser = new Map<string, ActivityRecord[]>();
  let lastRetentionMs: number | undefined;

  const dropOlder = (userId: string, cutoff: number): number => {
    const entries = byUser.get(userId);
    if (!entries) return 0;
    const kept = entries.filter((entry) => entry.at >= cutoff);
    if (kept.length === 0) byUser.delete(userId);
    else byUser.set(userId, kept);
    return entries.length - kept.length;
  };

  const sweepActivity = async (cutoff: number) => {
    let removed = 0;
    for (const userId of [...byUser.keys()]) removed += dropOlder(userId, cutoff);
    return removed;
  };

  return {
    async record(entry, retentionMs) {
      lastRetentionMs = retentionMs;
      const entries = byUser.get(entry.userId) ?? [];
      entries.push({ ...entry });
      entries.sort(newerFirst);
      byUser.set(entry.userId, entries);
      dropOlder(entry.userId, entry.at - retentionMs);
    },
    async list(userId, { before, limit, since }) {
      const entries = byUser.get(userId) ?? [];
      return entries
        .filter(
          (entry) =>
            (before === undefined || olderThan(entry, before)) && (since === undefined || entry.at >= since),
        )
        .slice(0, Math.max(0, limit))
        .map((entry) => ({ ...entry }));
    },
    async deleteUserActivity(userId) {
      const count = byUser.get(userId)?.length ?? 0;
      byUser.delete(userId);
      return count;
    },
    sweepActivity,
    sweep() {
      if (lastRetentionMs === undefined) return 0;
      const cutoff = clock.now() - lastRetentionMs;
      let removed = 0;
      for (const userId of [...byUser.keys()]) removed += dropOlder(userId, cutoff);
      return removed;
    },
  };
}
