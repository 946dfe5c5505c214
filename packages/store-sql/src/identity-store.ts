import type { IdentityRecord, IdentityStore } from "@portcullis/core";
import { insertUnlessTaken, type SqlContext, toNumber } from "./context.js";
import { deleteKeepingAtLeast } from "./delete-keeping.js";

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

/**
 * Identity-provider links in `<prefix>identities`: the primary key (issuer, subject) and the
 * unique key (user_id, provider) make `link` atomic on both. A conditional `unlink` is one
 * DELETE with a count subquery on SQLite, and a transaction that locks the user's rows first
 * (`SELECT … FOR UPDATE`) on PostgreSQL and MySQL.
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
      if (!(await insertUnlessTaken({ db, dialect }, table, row))) return null;
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
    unlink: (userId, provider, options) =>
      deleteKeepingAtLeast(
        { db, dialect },
        { table, userId, column: "provider", value: provider },
        options?.keepAtLeast ?? 0,
      ),
  };
}
