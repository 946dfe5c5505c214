import { type AnyKysely, inTransaction, isDuplicateKey, type SqlContext, toNumber } from "./context.js";

/**
 * The statements the SCIM store's users and groups share (scim-store.ts, scim-groups.ts): its
 * transactions, creations that tell which unique key refused them, compare-and-set updates, pages
 * and counts of a connection's rows.
 */

/** Rows of `<prefix>scim_group_members` one INSERT writes at most, and ids one `in (…)` names at most. */
const CHUNK = 500;

/** How often a creation whose only rival vanished before it could be named is tried: once, and twice more. */
const CREATE_ATTEMPTS = 3;

/**
 * A transaction of the store: read committed on PostgreSQL and MySQL (each statement sees what
 * committed before it, and MySQL takes no gap locks), SQLite's own otherwise.
 */
export const transaction = <T>({ db, dialect }: SqlContext, work: (trx: AnyKysely) => Promise<T>) =>
  inTransaction(db, work, { readCommitted: dialect !== "sqlite" });

/**
 * Runs `insert` (in a transaction) until it stores the new row of `id` in `table` or a rival is
 * named: "created", or what `taken` answers once a unique key refused it. Rejects when the id
 * itself is taken (ids are random: the caller's mistake), or when the rival vanished each time.
 */
export async function createUntilTaken<Taken extends string>(
  context: SqlContext,
  table: string,
  id: string,
  taken: () => Promise<Taken | null>,
  insert: (trx: AnyKysely) => Promise<void>,
): Promise<"created" | Taken> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transaction(context, insert);
      return "created";
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const rival = await taken();
    if (rival !== null) return rival;
    const sameId = await context.db.selectFrom(table).select("id").where("id", "=", id).executeTakeFirst();
    if (sameId) throw new Error(`@portcullis/store-sql: ${table} has a row of id ${id} already`);
    if (attempt >= CREATE_ATTEMPTS)
      throw new Error(`@portcullis/store-sql: ${table} refused ${id} for a rival now gone`);
  }
}

/**
 * The compare-and-set of an update: `columns` and `version + 1` on the connection's row `id` if
 * its version is still `version`. "updated"; else "conflict" when the row is there, null when not.
 */
export async function compareAndSet(
  trx: AnyKysely,
  table: string,
  connectionId: string,
  id: string,
  version: number,
  columns: object,
): Promise<"updated" | "conflict" | null> {
  const { numUpdatedRows } = await trx
    .updateTable(table)
    .set((eb) => ({ ...columns, version: eb("version", "+", 1) }))
    .where("id", "=", id)
    .where("connection_id", "=", connectionId)
    .where("version", "=", version)
    .executeTakeFirst();
  if (Number(numUpdatedRows) > 0) return "updated";
  const row = await trx
    .selectFrom(table)
    .select("id")
    .where("id", "=", id)
    .where("connection_id", "=", connectionId)
    .executeTakeFirst();
  return row ? "conflict" : null;
}

/** The statement of a page of the connection's rows of `table`: ascending by id, after `after`. */
export function pageOf(
  db: AnyKysely,
  table: string,
  connectionId: string,
  page: { after?: string; limit: number },
) {
  let query = db.selectFrom(table).selectAll().where("connection_id", "=", connectionId);
  if (page.after !== undefined) query = query.where("id", ">", page.after);
  return query.orderBy("id").limit(page.limit);
}

/** How many rows of `table` the connection has. */
export async function countOf(db: AnyKysely, table: string, connectionId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("count"))
    .where("connection_id", "=", connectionId)
    .executeTakeFirst();
  return toNumber(row?.count ?? 0);
}

/** `items` in slices of at most `CHUNK`. */
export function chunks<T>(items: T[]): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) slices.push(items.slice(start, start + CHUNK));
  return slices;
}
