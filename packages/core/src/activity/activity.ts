import {
  SECURITY_EVENT_TYPES,
  type SecurityEvent,
  type SecurityEventType,
  shownInActivity,
} from "../events.js";
import type { ActivityRecord, ActivityStore } from "../ports/activity-store.js";
import type { Logger } from "../ports/logger.js";
import type { BackgroundTasks } from "../support/background.js";
import { coalescedWrites } from "../support/coalesced-writes.js";
import { createPendingWrites, type PendingWrites } from "../support/pending-writes.js";
import { describeDevice } from "../support/user-agent.js";
import { randomHex } from "../tokens/random.js";

/**
 * The security events a user sees in their activity (when the event names the user): sign-ins,
 * failed and throttled sign-ins of the account, second-factor and step-up failures, 2FA changes,
 * password and address changes, provider links, passkey changes and refused passkey
 * registrations, ended sessions, refresh-token reuse, the back office's actions on the account,
 * organization changes they made or that concern them, API keys, the account's creation (by an
 * admin: `reason` `admin`). Each type's choice is made in `events.ts`.
 */
export const ACTIVITY_EVENT_TYPES: ReadonlySet<SecurityEventType> = new Set(
  SECURITY_EVENT_TYPES.filter(shownInActivity),
);

/** Records activity from security events, and lets a call wait for the writes it started. */
export interface ActivityRecorder {
  /** The store, or undefined when none is configured (nothing is recorded, lists are empty). */
  store: ActivityStore | undefined;
  retentionMs: number;
  /** Starts the write of `event` when it belongs in the user's activity; never waits, never throws. */
  observe(event: SecurityEvent): void;
  /**
   * Runs `work` as one call: every activity write its events start is awaited before the
   * returned promise settles (after `work` settles, whether it resolved or rejected), so a
   * caller that has the answer finds the activity written. A failed write is logged only. The
   * writes waited for are those `writes` tracked while `work` ran (support/pending-writes.ts):
   * the audit log's too, when it shares the tracker, and maybe a concurrent call's.
   */
  within<T>(work: () => Promise<T>): Promise<T>;
}

/** The most entries one `recordMany` carries; more wait for the next. */
export const MAX_ACTIVITY_BATCH = 500;

/** Time-ordered within one process: a 12-hex counter, then 12 random hex (ids of one length). */
function idMinter(): () => string {
  let sequence = 0;
  return () => {
    sequence = (sequence + 1) % 0x1000000000000;
    return `${sequence.toString(16).padStart(12, "0")}${randomHex(6)}`;
  };
}

/** The entry `event` makes, or null when it does not go into anyone's activity. */
export function activityEntry(event: SecurityEvent, id: string): ActivityRecord | null {
  if (event.userId === null || !ACTIVITY_EVENT_TYPES.has(event.type)) return null;
  // A sign-in names its session's device (what the client stated, else its User-Agent's).
  const { browser, os } = event.device ?? describeDevice(undefined, event.userAgent ?? undefined);
  const reason = event.type === "login.succeeded" ? (event.reason ?? "password") : event.reason;
  return { id, userId: event.userId, type: event.type, at: event.time, ip: event.ip, browser, os, reason };
}

/**
 * Records the activity entries of security events. With the store's `recordMany`, the entries
 * of one event-loop turn are written in one call and one call is in flight at a time, the next
 * batch growing meanwhile (`coalescedWrites`); without it, each entry is its own `record`. Each
 * write is tracked in `writes`, so a call's answer comes after the entries its events started.
 * A failed write is logged (`activity.write_failed`, with `count` for a batch) and never fails
 * the call.
 */
export function createActivityRecorder(options: {
  store: ActivityStore | undefined;
  retentionDays: number;
  logger: Logger;
  background: BackgroundTasks;
  /** The tracker `within` waits on, shared with the audit log's recorder; default: its own. */
  writes?: PendingWrites;
}): ActivityRecorder {
  const { store, logger, background } = options;
  const writes = options.writes ?? createPendingWrites(store !== undefined);
  const retentionMs = options.retentionDays * 24 * 3600 * 1000;
  const mintId = idMinter();
  const failed = (entries: readonly ActivityRecord[], error: unknown) => {
    const [first] = entries;
    logger.error(
      {
        event: "activity.write_failed",
        type: first?.type,
        userId: first?.userId,
        ...(entries.length > 1 ? { count: entries.length } : {}),
        err: String(error),
      },
      entries.length > 1 ? "could not record activity entries" : "could not record an activity entry",
    );
  };
  const recordMany = store?.recordMany;
  const batches =
    store &&
    recordMany &&
    coalescedWrites<ActivityRecord>({
      maxBatch: MAX_ACTIVITY_BATCH,
      write: (entries) =>
        recordMany.call(store, entries, retentionMs).catch((error: unknown) => failed(entries, error)),
      opened: (done) => background.run("activity.write_failed", () => done),
    });
  return {
    store,
    retentionMs,
    observe(event) {
      if (!store) return;
      const entry = activityEntry(event, mintId());
      if (!entry) return;
      if (batches) {
        writes.track(batches.add(entry));
        return;
      }
      const write = Promise.resolve()
        .then(() => store.record(entry, retentionMs))
        .catch((error: unknown) => failed([entry], error));
      background.run("activity.write_failed", () => write);
      writes.track(write);
    },
    within: (work) => writes.within(work),
  };
}
