import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { chunks } from "./rows.js";

// biome-ignore lint/suspicious/noExplicitAny: the ledger and store-sql's tables are not part of a host database type.
export type AnyKysely = Kysely<any>;

/** What the ledger knows of one imported source id. */
export interface LedgerEntry {
  /** The account the source id became. */
  userId: string;
  /** The SHA-256 of the source account as it was last imported (`accountDigest`); null in a ledger written before digests were kept. */
  digest: string | null;
  /** The SHA-256 of the password hash the import last wrote (`hashDigest`); null when unknown. */
  hashDigest: string | null;
}

/** One import to record: which source id became which account, and the digests that tell a changed row. */
export interface LedgerRecord {
  source: string;
  sourceId: string;
  userId: string;
  at: number;
  digest: string;
  hashDigest: string;
}

/**
 * The import ledger, `<prefix>import_ledger`: which source id became which account, with the
 * digest of the source account as imported (so a re-run tells an unchanged row from a changed
 * one) and of the password hash the import wrote (so a changed hash replaces only that one). It
 * makes a re-run idempotent and a stopped run resumable, and tells a duplicate address within one
 * source (`duplicate_email`) from an account that was already in the target (`email_taken`). The
 * core never reads it; drop it after the cut-over.
 */
export interface Ledger {
  /** The table's name, `<prefix>import_ledger`. */
  readonly table: string;
  /** Whether the table exists (a dry run creates nothing, so it reads an absent ledger as empty). */
  exists(): Promise<boolean>;
  /**
   * Creates the table when absent (primary key: source and source id; unique: source and user
   * id), and adds the digest columns to a ledger written before they were kept.
   */
  create(): Promise<void>;
  /** Drops the table when present (after the cut-over: the imported accounts stay, re-runs are no longer recognized). */
  drop(): Promise<void>;
  /** Whether this source id was imported from `source`. */
  has(source: string, sourceId: string): Promise<boolean>;
  /** The entries of those of `sourceIds` imported from `source`, by source id: one query. */
  lookup(source: string, sourceIds: readonly string[]): Promise<Map<string, LedgerEntry>>;
  /** Whether this account was created by an import from `source`. */
  created(source: string, userId: string): Promise<boolean>;
  /** Those of `userIds` that an import from `source` created: one query. */
  createdAmong(source: string, userIds: readonly string[]): Promise<Set<string>>;
  /** Records one import, through `db` (the transaction that created the account). */
  record(db: AnyKysely, entry: LedgerRecord): Promise<void>;
  /** Records many imports in multi-row statements (500 rows each), through `db` (the transaction that created the accounts). */
  recordMany(db: AnyKysely, entries: readonly LedgerRecord[]): Promise<void>;
  /** Replaces the digests of an imported source id after an update, through `db` (the update's transaction). */
  updateDigests(
    db: AnyKysely,
    entry: { source: string; sourceId: string; digest: string; hashDigest: string | null },
  ): Promise<void>;
}

/** The longest key kept as it is; a longer one is kept as its SHA-256 (still unique, fits an index on every dialect). */
const MAX_KEY = 190;
const key = (value: string) =>
  value.length <= MAX_KEY ? value : `sha256:${createHash("sha256").update(value).digest("base64url")}`;

/** The digest of a password hash the import wrote; the empty text stands for none (no stored hash is empty). */
export const hashDigest = (passwordHash: string | null): string =>
  createHash("sha256")
    .update(passwordHash ?? "")
    .digest("hex");

const DIGEST_COLUMNS = ["digest", "hash_digest"] as const;

const row = (entry: LedgerRecord) => ({
  source: key(entry.source),
  source_id: key(entry.sourceId),
  user_id: entry.userId,
  imported_at: entry.at,
  digest: entry.digest,
  hash_digest: entry.hashDigest,
});

/** The ledger in `<tablePrefix>import_ledger` of `db`, through Kysely: the same on SQLite, PostgreSQL and MySQL. */
export function sqlLedger(db: AnyKysely, tablePrefix = "portcullis_"): Ledger {
  const table = `${tablePrefix}import_ledger`;
  const columns = async () =>
    (await db.introspection.getTables()).find((found) => found.name === table)?.columns ?? null;
  return {
    table,
    exists: async () => (await columns()) !== null,
    async create() {
      // Two runs started at once both create it: the loser's error is no error if the table is there.
      await unlessDone(
        () => createLedger(db, table),
        async () => (await columns()) !== null,
      );
      const present = new Set((await columns())?.map((column) => column.name));
      for (const name of DIGEST_COLUMNS)
        if (!present.has(name))
          await unlessDone(
            () => db.schema.alterTable(table).addColumn(name, "varchar(64)").execute(),
            async () => (await columns())?.some((column) => column.name === name) === true,
          );
    },
    async drop() {
      await db.schema.dropTable(table).ifExists().execute();
    },
    async has(source, sourceId) {
      return (await this.lookup(source, [sourceId])).has(sourceId);
    },
    async lookup(source, sourceIds) {
      const found = new Map<string, LedgerEntry>();
      if (sourceIds.length === 0) return found;
      const byKey = new Map(sourceIds.map((sourceId) => [key(sourceId), sourceId]));
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where("source", "=", key(source))
        .where("source_id", "in", [...byKey.keys()])
        .execute();
      for (const { source_id, user_id, digest, hash_digest } of rows)
        found.set(byKey.get(source_id) ?? source_id, {
          userId: user_id,
          digest: digest ?? null,
          hashDigest: hash_digest ?? null,
        });
      return found;
    },
    async created(source, userId) {
      return (await this.createdAmong(source, [userId])).has(userId);
    },
    async createdAmong(source, userIds) {
      if (userIds.length === 0) return new Set();
      const rows = await db
        .selectFrom(table)
        .select("user_id")
        .where("source", "=", key(source))
        .where("user_id", "in", [...userIds])
        .execute();
      return new Set(rows.map((found) => found.user_id as string));
    },
    async record(trx, entry) {
      await trx.insertInto(table).values(row(entry)).execute();
    },
    async recordMany(trx, entries) {
      for (const part of chunks(entries.map(row))) await trx.insertInto(table).values(part).execute();
    },
    async updateDigests(trx, entry) {
      await trx
        .updateTable(table)
        .set({ digest: entry.digest, hash_digest: entry.hashDigest })
        .where("source", "=", key(entry.source))
        .where("source_id", "=", key(entry.sourceId))
        .execute();
    },
  };
}

/** The ledger's CREATE TABLE IF NOT EXISTS. */
async function createLedger(db: AnyKysely, table: string): Promise<void> {
  await db.schema
    .createTable(table)
    .ifNotExists()
    .addColumn("source", "varchar(191)", (column) => column.notNull())
    .addColumn("source_id", "varchar(191)", (column) => column.notNull())
    .addColumn("user_id", "varchar(191)", (column) => column.notNull())
    .addColumn("imported_at", "bigint", (column) => column.notNull())
    .addColumn("digest", "varchar(64)")
    .addColumn("hash_digest", "varchar(64)")
    .addPrimaryKeyConstraint(`${table}_pk`, ["source", "source_id"])
    .addUniqueConstraint(`${table}_user`, ["source", "user_id"])
    .execute();
}

/**
 * Runs a schema change; when it fails and `done` then says the change is there (another run made
 * it at the same moment: PostgreSQL's IF NOT EXISTS is no guard against a concurrent CREATE), the
 * failure is dropped.
 */
async function unlessDone(change: () => Promise<unknown>, done: () => Promise<boolean>): Promise<void> {
  try {
    await change();
  } catch (error) {
    if (!(await done())) throw error;
  }
}
