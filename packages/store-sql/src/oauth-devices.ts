import type { OAuthDevicePoll, OAuthStore } from "@portcullis/core";
import { deleteReturning, insertUnlessTaken, type SqlContext } from "./context.js";
import { type DeviceRow, deviceOf, deviceRow } from "./oauth-rows.js";

/** How often a poll reads the authorization again after another call changed it meanwhile. */
const POLL_ATTEMPTS = 5;

/** What RFC 8628 §3.5 adds to the interval at each `slow_down`, in seconds. */
const SLOW_DOWN_SECONDS = 5;

/** The device authorizations' part of `OAuthStore`. */
export type DeviceMethods = Pick<
  OAuthStore,
  "createOAuthDevice" | "findOAuthDevice" | "decideOAuthDevice" | "pollOAuthDevice"
>;

/**
 * One poll, as `pollOAuthDevice` answers it. The row is read, then changed only if it is still as
 * read: an ended one is deleted (`expired`); an approved or denied one is deleted with its status
 * in the condition, so of concurrent polls one deletes it and gets the answer (the others find it
 * `absent`); a pending one has its `last_polled_at` (and, polled too soon, its interval) set by an
 * UPDATE conditioned on the poll time and interval read, and when a concurrent poll or decision
 * got there first, the poll reads the row again.
 */
async function poll(context: SqlContext, deviceCodeHash: string, now: number): Promise<OAuthDevicePoll> {
  const { db, tables } = context;
  const table = tables.oauthDevices;
  const byCode = () => db.deleteFrom(table).where("device_code_hash", "=", deviceCodeHash);
  for (let attempt = 1; attempt <= POLL_ATTEMPTS; attempt++) {
    const row = (await db
      .selectFrom(table)
      .selectAll()
      .where("device_code_hash", "=", deviceCodeHash)
      .executeTakeFirst()) as DeviceRow | undefined;
    if (!row) return { outcome: "absent" };
    if (Number(row.expires_at) <= now) {
      const { numDeletedRows } = await byCode().where("expires_at", "<=", now).executeTakeFirst();
      return Number(numDeletedRows) === 1 ? { outcome: "expired" } : { outcome: "absent" };
    }
    if (row.status !== "pending") {
      const deleted = await deleteReturning<DeviceRow>(context, table, {
        device_code_hash: deviceCodeHash,
        status: row.status,
      });
      if (!deleted) return { outcome: "absent" };
      return deleted.status === "approved"
        ? { outcome: "approved", device: deviceOf(deleted) }
        : { outcome: "denied" };
    }
    const interval = Number(row.interval_seconds);
    const last = row.last_polled_at === null ? null : Number(row.last_polled_at);
    const tooSoon = last !== null && now < last + interval * 1_000;
    const { numUpdatedRows } = await db
      .updateTable(table)
      .set({ last_polled_at: now, interval_seconds: tooSoon ? interval + SLOW_DOWN_SECONDS : interval })
      .where("device_code_hash", "=", deviceCodeHash)
      .where("status", "=", "pending")
      .where("interval_seconds", "=", interval)
      .where("last_polled_at", last === null ? "is" : "=", last)
      .executeTakeFirst();
    if (Number(numUpdatedRows) === 1) return { outcome: tooSoon ? "slow_down" : "pending" };
  }
  throw new Error(`pollOAuthDevice lost ${POLL_ATTEMPTS} races in a row on one device authorization`);
}

/**
 * The device authorizations' methods, on `<prefix>oauth_devices`, keyed by the device code's hash
 * (the user code's hash unique). A decision is one conditional UPDATE of a pending, unexpired row,
 * so of concurrent decisions exactly one matches.
 */
export function deviceMethods(context: SqlContext): DeviceMethods {
  const { db, tables } = context;
  const table = tables.oauthDevices;
  const pendingByUserCode = (userCodeHash: string, now: number) =>
    db
      .selectFrom(table)
      .selectAll()
      .where("user_code_hash", "=", userCodeHash)
      .where("status", "=", "pending")
      .where("expires_at", ">", now);
  return {
    createOAuthDevice: (device) => insertUnlessTaken(context, table, deviceRow(device)),

    async findOAuthDevice(userCodeHash, now) {
      const row = await pendingByUserCode(userCodeHash, now).executeTakeFirst();
      return row ? deviceOf(row as DeviceRow) : null;
    },

    async decideOAuthDevice(userCodeHash, decision, now) {
      const { numUpdatedRows } = await db
        .updateTable(table)
        .set({
          status: decision.approve ? "approved" : "denied",
          user_id: decision.userId,
          auth_time: decision.authTime,
        })
        .where("user_code_hash", "=", userCodeHash)
        .where("status", "=", "pending")
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return Number(numUpdatedRows) === 1;
    },

    pollOAuthDevice: (deviceCodeHash, now) => poll(context, deviceCodeHash, now),
  };
}
