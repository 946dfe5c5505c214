import { type AnyKysely, inTransaction, type SqlContext } from "./context.js";

/** One of a user's rows: in `table`, the row of `userId` whose `column` is `value`. */
export interface UserRow {
  table: string;
  userId: string;
  column: string;
  value: string;
}

const deleted = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows) > 0;

/**
 * Deletes the user's row, only when the user keeps `keepAtLeast` rows of the table afterwards
 * (an identity-provider link, a passkey: the account keeps a way to sign in). True when it was
 * deleted. One DELETE with a count subquery on SQLite, which runs one writing statement at a time.
 * On PostgreSQL and MySQL a statement's subquery reads a snapshot, so two concurrent deletes of
 * different rows would both see the other row: a transaction locks the user's rows first, so a
 * concurrent delete waits and then no longer sees the row this one deleted.
 */
export async function deleteKeepingAtLeast(
  { db, dialect }: Pick<SqlContext, "db" | "dialect">,
  { table, userId, column, value }: UserRow,
  keepAtLeast: number,
): Promise<boolean> {
  const remove = (executor: AnyKysely) =>
    executor.deleteFrom(table).where(column, "=", value).where("user_id", "=", userId);
  if (keepAtLeast <= 0) return deleted(await remove(db).executeTakeFirst());
  if (dialect === "sqlite") {
    const result = await remove(db)
      .where(
        (eb) => eb.selectFrom(table).select(eb.fn.countAll().as("n")).where("user_id", "=", userId),
        ">",
        keepAtLeast,
      )
      .executeTakeFirst();
    return deleted(result);
  }
  return inTransaction(db, async (trx) => {
    const rows = await trx
      .selectFrom(table)
      .select(column)
      .where("user_id", "=", userId)
      .forUpdate()
      .execute();
    if (!rows.some((row) => row[column] === value)) return false;
    if (rows.length - 1 < keepAtLeast) return false;
    return deleted(await remove(trx).executeTakeFirst());
  });
}
