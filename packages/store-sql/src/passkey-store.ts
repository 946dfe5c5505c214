import type { PasskeyRecord, PasskeyStore } from "@portcullis/core";
import {
  type AnyKysely,
  insertUnlessTaken,
  type SqlContext,
  storedKey,
  toBoolean,
  toNumber,
} from "./context.js";
import { deleteKeepingAtLeast } from "./delete-keeping.js";

/** A row of `<prefix>passkeys`; times are milliseconds. `id` is the credential id (its SHA-256 when longer than 200). */
interface PasskeyRow {
  id: string;
  credential_id: string;
  user_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  backup_eligible: boolean | number;
  backed_up: boolean | number;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

const fromRow = (row: PasskeyRow): PasskeyRecord => ({
  id: row.credential_id,
  userId: row.user_id,
  publicKey: row.public_key,
  counter: toNumber(row.counter),
  transports: JSON.parse(row.transports) as string[],
  backupEligible: toBoolean(row.backup_eligible),
  backedUp: toBoolean(row.backed_up),
  name: row.name,
  createdAt: toNumber(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : toNumber(row.last_used_at),
});

/**
 * Passkeys in `<prefix>passkeys` (migration `0010_passkeys`): the primary key on the credential id
 * makes `create` atomic, `recordUse` is one UPDATE conditional on the counter, and a conditional
 * `delete` is one DELETE with a count subquery on SQLite and a transaction that locks the user's
 * rows first (`SELECT … FOR UPDATE`) on PostgreSQL and MySQL.
 */
export function createSqlPasskeyStore({ db, dialect, tables }: SqlContext): PasskeyStore {
  const table = tables.passkeys;
  const byUser = (executor: AnyKysely, userId: string) =>
    executor.selectFrom(table).selectAll().where("user_id", "=", userId);
  return {
    async create(passkey) {
      const row: PasskeyRow = {
        id: storedKey(passkey.id),
        credential_id: passkey.id,
        user_id: passkey.userId,
        public_key: passkey.publicKey,
        counter: passkey.counter,
        transports: JSON.stringify(passkey.transports),
        backup_eligible: passkey.backupEligible ? 1 : 0,
        backed_up: passkey.backedUp ? 1 : 0,
        name: passkey.name,
        created_at: passkey.createdAt,
        last_used_at: passkey.lastUsedAt,
      };
      if (!(await insertUnlessTaken({ db, dialect }, table, row))) return null;
      return fromRow(row);
    },
    async findById(id) {
      const row = await db.selectFrom(table).selectAll().where("id", "=", storedKey(id)).executeTakeFirst();
      return row && (row as PasskeyRow).credential_id === id ? fromRow(row as PasskeyRow) : null;
    },
    async listByUser(userId) {
      const rows = await byUser(db, userId).orderBy("created_at").orderBy("id").execute();
      return rows.map((row) => fromRow(row as PasskeyRow));
    },
    async recordUse(id, use) {
      const result = await db
        .updateTable(table)
        .set({ counter: use.counter, backed_up: use.backedUp ? 1 : 0, last_used_at: use.usedAt })
        .where("id", "=", storedKey(id))
        .where("counter", "=", use.expectedCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async rename(userId, id, name) {
      const result = await db
        .updateTable(table)
        .set({ name })
        .where("id", "=", storedKey(id))
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return null;
      const row = await byUser(db, userId).where("id", "=", storedKey(id)).executeTakeFirst();
      return row ? fromRow(row as PasskeyRow) : null;
    },
    delete: (userId, id, options) =>
      deleteKeepingAtLeast(
        { db, dialect },
        { table, userId, column: "id", value: storedKey(id) },
        options?.keepAtLeast ?? 0,
      ),
    async deleteAllForUser(userId) {
      const result = await db.deleteFrom(table).where("user_id", "=", userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
