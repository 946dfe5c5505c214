import type { OAuthGrantRecord, OAuthRefreshRotation, OAuthStore } from "@portcullis/core";
import {
  type AnyKysely,
  insertUnlessTaken,
  inTransaction,
  isDuplicateKey,
  type SqlContext,
} from "./context.js";
import { type GrantRow, grantOf, grantRow } from "./oauth-rows.js";

/** How often `revokeOAuthGrant` looks again after a grant of its id appeared or went meanwhile. */
const REVOCATION_ATTEMPTS = 5;

/** The grants' part of `OAuthStore`. */
export type GrantMethods = Pick<
  OAuthStore,
  "createOAuthGrant" | "getOAuthGrant" | "rotateOAuthRefresh" | "revokeOAuthGrant" | "revokeUserOAuthGrants"
>;

/**
 * `createOAuthGrant`'s one statement: `insert … select <the grant's values> from <clients> where
 * client_id = ?`, so the grant is stored only while its client is, with the check and the insert
 * in one step. On PostgreSQL the client's row is read `for key share`, so a concurrent
 * `deleteOAuthClient` waits for the insert (and then deletes the grant too) or the insert waits
 * for it (and finds no client); MySQL's `insert … select` takes the same shared lock itself.
 * An id already taken inserts nothing: `on conflict do nothing`, on MySQL a duplicate-key error.
 */
async function insertGrant({ db, dialect, tables }: SqlContext, grant: OAuthGrantRecord): Promise<boolean> {
  const row = grantRow(grant);
  const columns = Object.keys(row) as (keyof GrantRow)[];
  let source = db
    .selectFrom(tables.oauthClients)
    .select((eb) => columns.map((column) => eb.val(row[column]).as(column)))
    .where("client_id", "=", grant.clientId);
  if (dialect === "postgres") source = source.forKeyShare();
  const insert = db.insertInto(tables.oauthGrants).columns(columns).expression(source);
  if (dialect === "mysql") {
    try {
      const result = await insert.executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }
  const result = await insert.onConflict((conflict) => conflict.doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The grant `grantId`'s row, ended or not. */
async function grantRowOf(db: AnyKysely, table: string, grantId: string): Promise<GrantRow | undefined> {
  return (await db.selectFrom(table).selectAll().where("grant_id", "=", grantId).executeTakeFirst()) as
    | GrantRow
    | undefined;
}

/**
 * `rotateOAuthRefresh`: a compare-and-set of the refresh hash in one conditional UPDATE (live at
 * `now` and holding the presented hash); when it matches nothing, a second conditional UPDATE
 * revokes the grant when it is live with another hash ("reused"), else nothing is there to
 * rotate ("absent"). Of concurrent rotations with the live hash, the database lets one UPDATE
 * match; the others find the hash changed, and the first of them revokes the grant.
 */
async function rotate(
  context: SqlContext,
  grantId: string,
  presentedHash: string,
  nextHash: string,
  now: number,
): Promise<OAuthRefreshRotation> {
  const { db, dialect, tables } = context;
  const table = tables.oauthGrants;
  const live = (executor: AnyKysely, set: Record<string, unknown>) =>
    executor
      .updateTable(table)
      .set(set)
      .where("grant_id", "=", grantId)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now);
  const swap = (executor: AnyKysely) =>
    live(executor, { refresh_hash: nextHash }).where("refresh_hash", "=", presentedHash);
  if (dialect === "mysql") {
    // No RETURNING: the grant is read in the UPDATE's transaction, which holds the row's lock, so
    // a concurrent revocation cannot come between them.
    const grant = await inTransaction(db, async (trx) => {
      const { numUpdatedRows } = await swap(trx).executeTakeFirst();
      const row = Number(numUpdatedRows) === 1 ? await grantRowOf(trx, table, grantId) : undefined;
      return row && grantOf(row);
    });
    if (grant) return { outcome: "rotated", grant };
  } else {
    const row = await swap(db).returningAll().executeTakeFirst();
    if (row) return { outcome: "rotated", grant: grantOf(row as GrantRow) };
  }
  const { numUpdatedRows } = await live(db, { revoked_at: now })
    .where((eb) => eb.or([eb("refresh_hash", "is", null), eb("refresh_hash", "!=", presentedHash)]))
    .executeTakeFirst();
  return Number(numUpdatedRows) === 1 ? { outcome: "reused" } : { outcome: "absent" };
}

/**
 * `revokeOAuthGrant`: revokes the live grant (a conditional UPDATE); else forgets an ended row of
 * the id and inserts the tombstone unless a row has the id. When one has it, it looks again: a
 * revoked or ended grant ends the call, a live one (created since the UPDATE) is revoked on the
 * next round. So a revocation racing the creation of its id either leaves the
 * tombstone that refuses the creation or revokes what was created.
 */
async function revoke(
  context: SqlContext,
  grantId: string,
  tombstone: { clientId: string; expiresAt: number },
  now: number,
): Promise<boolean> {
  const { db, tables } = context;
  const table = tables.oauthGrants;
  const row: GrantRow = {
    grant_id: grantId,
    client_id: tombstone.clientId,
    user_id: null,
    scopes: "[]",
    resources: "[]",
    auth_time: null,
    refresh_hash: null,
    created_at: now,
    expires_at: tombstone.expiresAt,
    revoked_at: now,
  };
  for (let attempt = 1; attempt <= REVOCATION_ATTEMPTS; attempt++) {
    const { numUpdatedRows } = await db
      .updateTable(table)
      .set({ revoked_at: now })
      .where("grant_id", "=", grantId)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(numUpdatedRows) === 1) return true;
    await db.deleteFrom(table).where("grant_id", "=", grantId).where("expires_at", "<=", now).execute();
    if (await insertUnlessTaken(context, table, row)) return false;
    // Taken: by a revoked or ended grant (whose row refuses the id as the tombstone would), or
    // by one created meanwhile, revoked on the next round.
    const found = await grantRowOf(db, table, grantId);
    if (found && (found.revoked_at !== null || Number(found.expires_at) <= now)) return false;
  }
  throw new Error(`revokeOAuthGrant lost ${REVOCATION_ATTEMPTS} races in a row on one grant`);
}

/**
 * The grants' methods, on `<prefix>oauth_grants`. Every read and change is of the grants live at
 * the caller's `now` (`expires_at > now`); a revoked grant keeps its row until then.
 */
export function grantMethods(context: SqlContext): GrantMethods {
  const { db, tables } = context;
  const table = tables.oauthGrants;
  return {
    createOAuthGrant: (grant) => insertGrant(context, grant),

    async getOAuthGrant(grantId, now) {
      const row = await grantRowOf(db, table, grantId);
      return row && Number(row.expires_at) > now ? grantOf(row) : null;
    },

    rotateOAuthRefresh: (grantId, presentedHash, nextHash, now) =>
      rotate(context, grantId, presentedHash, nextHash, now),

    revokeOAuthGrant: (grantId, tombstone, now) => revoke(context, grantId, tombstone, now),

    async revokeUserOAuthGrants(userId, now, clientId) {
      let update = db
        .updateTable(table)
        .set({ revoked_at: now })
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .where("expires_at", ">", now);
      if (clientId !== undefined) update = update.where("client_id", "=", clientId);
      const { numUpdatedRows } = await update.executeTakeFirst();
      return Number(numUpdatedRows);
    },
  };
}
