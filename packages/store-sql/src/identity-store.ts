import type { IdentityRecord, IdentityStore } from "@portcullis/core";
import { type SqlContext, toNumber } from "./context.js";

/** A row of `<prefix>identities`; times are milliseconds. */
interface IdentityRow {
  issuer: string;
  subject: string;
  user_id: string;
  provider: string;
  email: string | null;
  created_at: number | string;
}

const fromRow = (row: IdentityRow): IdentityRecord => ({
  userId: row.user_id,
  provider: row.provider,
  issuer: row.issuer,
  subject: row.subject,
  email: row.email,
  createdAt: toNumber(row.created_at),
});

/** MySQL's duplicate-key error (the other dialects use `ON CONFLICT DO NOTHING` instead). */
const isDuplicateKey = (error: unknown) =>
  (error as { code?: unknown }).code === "ER_DUP_ENTRY" || (error as { errno?: unknown }).errno === 1062;

/**
 * Identity-provider links in `<prefix>identities`: the primary key (issuer, subject) and the
 * unique key (user_id, provider) make `link` atomic on both.
 */
export function createSqlIdentityStore({ db, dialect, tables }: SqlContext): IdentityStore {
  const table = tables.identities;
  return {
    async link(identity) {
      const row: IdentityRow = {
        issuer: identity.issuer,
        subject: identity.subject,
        user_id: identity.userId,
        provider: identity.provider,
        email: identity.email,
        created_at: identity.createdAt,
      };
      if (dialect === "mysql") {
        try {
          await db.insertInto(table).values(row).execute();
        } catch (error) {
          if (isDuplicateKey(error)) return null;
          throw error;
        }
      } else {
        // No conflict target: a clash on either key (also a concurrent one) inserts nothing.
        const result = await db
          .insertInto(table)
          .values(row)
          .onConflict((conflict) => conflict.doNothing())
          .executeTakeFirst();
        if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return null;
      }
      return fromRow(row);
    },
    async findBySubject(issuer, subject) {
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where("issuer", "=", issuer)
        .where("subject", "=", subject)
        .executeTakeFirst();
      return row ? fromRow(row as IdentityRow) : null;
    },
    async listByUser(userId) {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("created_at")
        .orderBy("provider")
        .execute();
      return rows.map((row) => fromRow(row as IdentityRow));
    },
    async unlink(userId, provider) {
      const result = await db
        .deleteFrom(table)
        .where("user_id", "=", userId)
        .where("provider", "=", provider)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
