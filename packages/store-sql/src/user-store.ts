import type { TwoFactorMethod, UserListQuery, UserPatch, UserRecord, UserStore } from "@portcullis/core";
import { sql } from "kysely";
import { compiledQuery } from "./compiled-query.js";
import { insertUnlessTaken, isDuplicateKey, type SqlContext, toBoolean, toNumber } from "./context.js";

/** A row of `<prefix>users`: lists are JSON arrays in text columns, times are milliseconds. */
export interface UserRow {
  id: string;
  email: string;
  email_verified: boolean | number;
  name: string | null;
  password_hash: string | null;
  identity_providers: string;
  two_factor_methods: string;
  two_factor_preferred_method: string | null;
  totp_secret_encrypted: string | null;
  recovery_code_hashes: string;
  created_at: number | string;
  /** Null until the account's first sign-in (migration `0003_last_sign_in`). */
  last_sign_in_at?: number | string | null;
  /** The back office's lock and required password change (migration `0012_back_office`). */
  locked_at?: number | string | null;
  lock_reason?: string | null;
  locked_by?: string | null;
  /** 1 when the next password sign-in must set a new password; null or 0 otherwise. */
  password_change_required?: number | string | boolean | null;
}

const list = (json: string): string[] => JSON.parse(json) as string[];

export function fromUserRow(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    emailVerified: toBoolean(row.email_verified),
    name: row.name,
    passwordHash: row.password_hash,
    identityProviders: list(row.identity_providers),
    twoFactor: {
      methods: list(row.two_factor_methods) as TwoFactorMethod[],
      preferredMethod: row.two_factor_preferred_method as TwoFactorMethod | null,
      totpSecretEncrypted: row.totp_secret_encrypted,
      recoveryCodeHashes: list(row.recovery_code_hashes),
    },
    createdAt: toNumber(row.created_at),
    ...(row.last_sign_in_at == null ? {} : { lastSignInAt: toNumber(row.last_sign_in_at) }),
    ...(row.locked_at == null
      ? {}
      : {
          lockedAt: toNumber(row.locked_at),
          lockReason: row.lock_reason ?? null,
          lockedBy: row.locked_by ?? null,
        }),
    ...(row.password_change_required != null && toBoolean(row.password_change_required as number)
      ? { passwordChangeRequired: true }
      : {}),
  };
}

/** The columns a patch changes; `id`, `email` and `createdAt` are never among them. */
function patchColumns(patch: UserPatch): Partial<UserRow> {
  const columns: Partial<UserRow> = {};
  if (patch.emailVerified !== undefined) columns.email_verified = patch.emailVerified ? 1 : 0;
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.passwordHash !== undefined) columns.password_hash = patch.passwordHash;
  if (patch.identityProviders !== undefined)
    columns.identity_providers = JSON.stringify(patch.identityProviders);
  if (patch.lastSignInAt !== undefined) columns.last_sign_in_at = patch.lastSignInAt;
  if (patch.lockedAt !== undefined) columns.locked_at = patch.lockedAt;
  if (patch.lockReason !== undefined) columns.lock_reason = patch.lockReason;
  if (patch.lockedBy !== undefined) columns.locked_by = patch.lockedBy;
  if (patch.passwordChangeRequired !== undefined)
    columns.password_change_required = patch.passwordChangeRequired ? 1 : 0;
  if (patch.twoFactor !== undefined) {
    columns.two_factor_methods = JSON.stringify(patch.twoFactor.methods);
    columns.two_factor_preferred_method = patch.twoFactor.preferredMethod;
    columns.totp_secret_encrypted = patch.twoFactor.totpSecretEncrypted;
    columns.recovery_code_hashes = JSON.stringify(patch.twoFactor.recoveryCodeHashes);
  }
  return columns;
}

export function toUserRow(user: UserRecord): UserRow {
  return {
    id: user.id,
    email: user.email,
    created_at: user.createdAt,
    ...(patchColumns(user) as Omit<UserRow, "id" | "email" | "created_at">),
  };
}

/** A user by id or by address: the reads of every sign-in and refresh, compiled once. */
function userReads(db: SqlContext["db"], table: string) {
  const readBy = (column: "id" | "email") =>
    compiledQuery<[string], UserRow>(1, (on, value) =>
      on.selectFrom(table).selectAll().where(column, "=", value),
    );
  const reads = { id: readBy("id"), email: readBy("email") };
  return async (column: "id" | "email", value: string) => {
    const [row] = await reads[column](db, value);
    return row ? fromUserRow(row) : null;
  };
}

/**
 * Users in `<prefix>users`; the unique index on the normalized email makes `create` atomic, and
 * `recordSignIn`'s `is null` condition makes exactly one of concurrent first sign-ins the first.
 */
export function createSqlUserStore({ db, dialect, tables }: SqlContext): UserStore {
  const table = tables.users;
  const findBy = userReads(db, table);
  return {
    findById: (id) => findBy("id", id),
    findByEmail: (email) => findBy("email", email),
    async create(user) {
      const row = toUserRow(user);
      if (!(await insertUnlessTaken({ db, dialect }, table, row))) return null;
      return fromUserRow(row);
    },
    async update(id, patch) {
      const columns = patchColumns(patch);
      if (Object.keys(columns).length === 0) return findBy("id", id);
      const query = db.updateTable(table).set(columns).where("id", "=", id);
      if (dialect === "mysql") {
        // MySQL counts only rows whose values changed, so read the record back instead.
        await query.execute();
        return findBy("id", id);
      }
      const row = await query.returningAll().executeTakeFirst();
      return row ? fromUserRow(row as UserRow) : null;
    },
    async recordSignIn(id, at) {
      if (dialect === "postgres") return recordSignInInOneStatement(db, table, id, at);
      // A later sign-in (the common case) is one statement; the first is the compare-and-set
      // `where last_sign_in_at is null`, which only one of concurrent first sign-ins can win.
      const set = () => db.updateTable(table).set({ last_sign_in_at: at }).where("id", "=", id);
      const later = await set().where("last_sign_in_at", "is not", null).executeTakeFirst();
      if (Number(later.numUpdatedRows) > 0) return false;
      const first = await set().where("last_sign_in_at", "is", null).executeTakeFirst();
      return Number(first.numUpdatedRows) > 0;
    },
    // PostgreSQL only: the other dialects cannot read the row as it was in the UPDATE itself.
    ...(dialect === "postgres"
      ? {
          recordSignInIfUnchanged: (id: string, at: number, passwordHash?: string) =>
            recordSignInIfUnchanged(db, table, id, at, passwordHash),
        }
      : {}),
    async replacePasswordHash(id, expected, next) {
      // One conditional UPDATE: of concurrent replacements of one hash, the database lets one match.
      const result = await db
        .updateTable(table)
        .set({ password_hash: next })
        .where("id", "=", id)
        .where("password_hash", "=", expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async changeEmail(id, from, to) {
      // One conditional UPDATE: the unique index on the email column lets one of two users moving
      // to one address (or an account created with it) win; the other's statement fails on it.
      let updated: number;
      try {
        const result = await db
          .updateTable(table)
          .set({ email: to, email_verified: 1 })
          .where("id", "=", id)
          .where("email", "=", from)
          .executeTakeFirst();
        updated = Number(result.numUpdatedRows);
      } catch (error) {
        if (isDuplicateKey(error)) return { status: "taken" };
        throw error;
      }
      if (updated === 0) return { status: "stale" };
      const user = await findBy("id", id);
      return user && user.email === to ? { status: "changed", user } : { status: "stale" };
    },
    listUsers: (query) => listUsersPage({ db, dialect, tables }, query),
    async delete(id) {
      const result = await db.deleteFrom(table).where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/**
 * PostgreSQL's `recordSignIn`, first sign-in or not, in one statement: the row is locked and read
 * (`for update`) in the UPDATE's own FROM, so the value returned is the one this update replaced.
 * Of concurrent first sign-ins, the later ones wait for the lock and read the earlier one's time.
 */
async function recordSignInInOneStatement(
  db: SqlContext["db"],
  table: string,
  id: string,
  at: number,
): Promise<boolean> {
  const users = sql.table(table);
  const { rows } = await sql<{ before: number | string | null }>`update ${users} as u
    set last_sign_in_at = ${at}
    from (select id, last_sign_in_at from ${users} where id = ${id} for update) as before
    where u.id = before.id
    returning before.last_sign_in_at as before`.execute(db);
  return rows.length > 0 && rows[0]?.before == null;
}

/**
 * PostgreSQL's `recordSignInIfUnchanged`, one statement: the row is locked and read in the
 * UPDATE's own FROM (as it was, so the core's checks see it), and `last_sign_in_at` is set only
 * when the account is unlocked and, with `passwordHash`, still has that hash.
 */
async function recordSignInIfUnchanged(
  db: SqlContext["db"],
  table: string,
  id: string,
  at: number,
  passwordHash: string | undefined,
): Promise<UserRecord | null> {
  const users = sql.table(table);
  const hash = passwordHash ?? null;
  const { rows } = await sql<UserRow>`update ${users} as u
    set last_sign_in_at = case
      when before.locked_at is null and (${hash}::text is null or before.password_hash = ${hash}::text)
      then ${at}::bigint else u.last_sign_in_at end
    from (select * from ${users} where id = ${id} for update) as before
    where u.id = before.id
    returning before.*`.execute(db);
  const [row] = rows;
  return row ? fromUserRow(row) : null;
}

/**
 * `listUsers`: keyset pagination on the unique email, in byte order: a range scan of the email
 * index (PostgreSQL: the `collate "C"` index of migration 0012), O(limit) whatever the table's size.
 */
async function listUsersPage(
  { db, dialect, tables }: Pick<SqlContext, "db" | "dialect" | "tables">,
  { prefix, after, limit }: UserListQuery,
): Promise<UserRecord[]> {
  const key = dialect === "postgres" ? sql<string>`email collate "C"` : sql<string>`email`;
  let query = db.selectFrom(tables.users).selectAll();
  if (prefix !== "") query = query.where(key, ">=", prefix).where(key, "<", `${prefix}\u{10FFFF}`);
  if (after !== undefined) query = query.where(key, ">", after);
  const rows = await query.orderBy(key).limit(limit).execute();
  return (rows as UserRow[]).map(fromUserRow);
}
