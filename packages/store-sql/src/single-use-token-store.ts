import type { SingleUseTokenStore, TokenRecord } from "@portcullis/core";
import { deleteReturning, inTransaction, type SqlContext, toNumber } from "./context.js";

interface TokenRow {
  purpose: string;
  token_hash: string;
  user_id: string;
  expires_at: number | string;
  data: string | null;
  /** When the row reads as absent (`ttlMs` after it was saved). */
  delete_at: number | string;
}

const fromTokenRow = (row: TokenRow): TokenRecord => ({
  purpose: row.purpose,
  tokenHash: row.token_hash,
  userId: row.user_id,
  expiresAt: toNumber(row.expires_at),
  ...(row.data === null ? {} : { data: JSON.parse(row.data) as TokenRecord["data"] }),
});

/**
 * The row's UPSERT (a claim on a token saved again is dropped), on `db` or a transaction. One
 * statement, no transaction of its own: a DELETE of an absent row before an INSERT took gap locks
 * on MySQL, and concurrent saves (anonymous passkey challenges share one user id) deadlocked.
 */
function saveTokenRow({ dialect, tables }: SqlContext, db: SqlContext["db"], row: TokenRow) {
  const { purpose: _purpose, token_hash: _hash, ...rest } = row;
  const update = { ...rest, claimed_until: null };
  const insert = db.insertInto(tables.tokens).values(row);
  return dialect === "mysql"
    ? insert.onDuplicateKeyUpdate(update)
    : insert.onConflict((conflict) => conflict.columns(["purpose", "token_hash"]).doUpdateSet(update));
}

/** The user's rows of `purpose` that do not read as absent yet (the index on user and purpose). */
async function liveUserTokenRows({ db, tables, clock }: SqlContext, userId: string, purpose: string) {
  return (await db
    .selectFrom(tables.tokens)
    .selectAll()
    .where("user_id", "=", userId)
    .where("purpose", "=", purpose)
    .where("delete_at", ">", clock.now())
    .execute()) as TokenRow[];
}

/**
 * Single-use tokens in `<prefix>tokens`, keyed by purpose and hash. Expired rows read as absent
 * in every query (the time comes from the injected clock, never the database's).
 */
export function createSqlSingleUseTokenStore(context: SqlContext): SingleUseTokenStore {
  const { db, tables, clock } = context;
  const tokens = tables.tokens;
  return {
    async saveToken(token, ttlMs, options) {
      const row: TokenRow = {
        purpose: token.purpose,
        token_hash: token.tokenHash,
        user_id: token.userId,
        expires_at: token.expiresAt,
        data: token.data === undefined ? null : JSON.stringify(token.data),
        delete_at: clock.now() + ttlMs,
      };
      if (!options?.replaceOthers) {
        await saveTokenRow(context, db, row).execute();
        return;
      }
      await inTransaction(db, async (trx) => {
        await trx
          .deleteFrom(tokens)
          .where("user_id", "=", token.userId)
          .where("purpose", "=", token.purpose)
          .execute();
        await saveTokenRow(context, trx, row).execute();
      });
    },

    async consumeToken(purpose, tokenHash) {
      const row = await deleteReturning<TokenRow>(context, tokens, { purpose, token_hash: tokenHash });
      return row && toNumber(row.delete_at) > clock.now() ? fromTokenRow(row) : null;
    },

    async claimToken(purpose, tokenHash, leaseMs) {
      const now = clock.now();
      // One conditional UPDATE: of concurrent claims, the database lets exactly one match.
      const { numUpdatedRows } = await db
        .updateTable(tokens)
        .set({ claimed_until: now + Math.max(1, Math.ceil(leaseMs)) })
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .where("delete_at", ">", now)
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
        .executeTakeFirst();
      if (Number(numUpdatedRows) !== 1) return null;
      const row = (await db
        .selectFrom(tokens)
        .selectAll()
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst()) as TokenRow | undefined;
      return row ? fromTokenRow(row) : null;
    },

    async releaseToken(purpose, tokenHash) {
      await db
        .updateTable(tokens)
        .set({ claimed_until: null })
        .where("purpose", "=", purpose)
        .where("token_hash", "=", tokenHash)
        .execute();
    },

    async listUserTokens(userId, purpose) {
      return (await liveUserTokenRows(context, userId, purpose)).map(fromTokenRow);
    },

    async deleteUserTokens(userId, purpose) {
      const { numDeletedRows } = await db
        .deleteFrom(tokens)
        .where("user_id", "=", userId)
        .where("purpose", "=", purpose)
        .where("delete_at", ">", clock.now())
        .executeTakeFirst();
      return Number(numDeletedRows);
    },
  };
}
