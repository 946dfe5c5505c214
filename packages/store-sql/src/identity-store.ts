import type { IdentityRecord, IdentityStore } from "@portcullis/core";
import { type AnyKysely, insertUnlessTaken, inTransaction, type SqlContext, toNumber } from "./context.js";

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

const deleted = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows) > 0;

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
    async unlink(userId, provider, options) {
      const keepAtLeast = options?.keepAtLeast ?? 0;
      const remove = (executor: AnyKysely) =>
        executor.deleteFrom(table).where("user_id", "=", userId).where("provider", "=", provider);
      if (keepAtLeast <= 0) return deleted(await remove(db).executeTakeFirst());
      if (dialect === "sqlite") {
        // SQLite runs one writing statement at a time: the count and the delete are one step.
        const result = await remove(db)
          .where(
            (eb) => eb.selectFrom(table).select(eb.fn.countAll().as("n")).where("user_id", "=", userId),
            ">",
            keepAtLeast,
          )
          .executeTakeFirst();
        return deleted(result);
      }
      // PostgreSQL and MySQL: a statement's subquery reads a snapshot, so two concurrent deletes
      // of different rows would both see the other row. Lock the user's rows first: a concurrent
      // unlink waits, then no longer sees the row this one deleted.
      return inTransaction(db, async (trx) => {
        const links = await trx
          .selectFrom(table)
          .select("provider")
          .where("user_id", "=", userId)
          .forUpdate()
          .execute();
        if (!links.some((link) => link.provider === provider)) return false;
        if (links.length - 1 < keepAtLeast) return false;
        return deleted(await remove(trx).executeTakeFirst());
      });
    },
  };
}
