import { z } from "zod";
import { guardPort } from "../errors.js";
import type { ActivityRecord } from "../ports/activity-store.js";
import type { Clock } from "../ports/clock.js";
import { parseInput } from "../validation.js";
import type { ActivityRecorder } from "./activity.js";
import { decodeActivityCursor, encodeActivityCursor } from "./cursor.js";

/** Entries per page when the caller names no `limit`. */
export const DEFAULT_ACTIVITY_PAGE = 20;
/** The most entries one page may ask for. */
export const MAX_ACTIVITY_PAGE = 100;

/** `{ cursor?, limit? }` of a page of activity; `limit` may come as text (a query string). */
export const activityPageInput = z
  .object({
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_ACTIVITY_PAGE).optional(),
  })
  .strict();

/** One entry as `GET /activity` answers it. */
export interface ActivityItem {
  type: string;
  /** ISO 8601. */
  at: string;
  ip: string | null;
  browser: string | null;
  os: string | null;
  /** The event's reason: for a sign-in its method (`password`, `oidc:<provider>`, `recovery_code`, `api`). */
  reason: string | null;
}

export interface ActivityPage {
  items: ActivityItem[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
}

const toItem = (entry: ActivityRecord): ActivityItem => ({
  type: entry.type,
  at: new Date(entry.at).toISOString(),
  ip: entry.ip,
  browser: entry.browser,
  os: entry.os,
  reason: entry.reason,
});

/**
 * A page of `userId`'s activity, newest first, within the retention (older entries are never
 * listed, swept or not). Reads one entry more than the page to know whether another follows.
 */
export async function listActivityPage(
  deps: { activity: ActivityRecorder; clock: Clock },
  userId: string,
  input: unknown,
): Promise<ActivityPage> {
  const { cursor, limit = DEFAULT_ACTIVITY_PAGE } = parseInput(activityPageInput, input ?? {});
  const before = cursor === undefined || cursor === "" ? undefined : decodeActivityCursor(cursor);
  const store = deps.activity.store;
  if (!store) return { items: [], nextCursor: null };
  const since = deps.clock.now() - deps.activity.retentionMs;
  const entries = await guardPort("DATABASE_FAILURE", () =>
    store.list(userId, { before, limit: limit + 1, since }),
  );
  const page = entries.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toItem),
    nextCursor: entries.length > limit && last ? encodeActivityCursor(last) : null,
  };
}
