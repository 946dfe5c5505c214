import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores, tableNames } from "@portcullis/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAccounts } from "./import-accounts.js";
import { type AnyKysely, sqlLedger } from "./ledger.js";
import { openTarget } from "./open-target.js";
import { prepareAccount } from "./prepare.js";
import { insertUsersAndLinks } from "./rows.js";
import type { ImportSource, SourceAccount } from "./source.js";
import { formatSummary } from "./summary.js";
import { ownDatabase, POSTGRES } from "./test-scenario.js";

// Batches, their fallback, updates of the password hash and the ledger's upkeep, on SQLite files.
const HASH_A = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
const HASH_B = "$2b$10$abcdefghijklmnopqrstuuJ3s8ZyL0X6kq0s2Yb0Q2xk6m4i3G6Aa";
const HASH_C = "$2b$10$zyxwvutsrqponmlkjihgfeJ3s8ZyL0X6kq0s2Yb0Q2xk6m4i3G6Aa";

const source = (accounts: SourceAccount[], name = "test"): ImportSource => ({
  name,
  async *rows() {
    for (const [at, account] of accounts.entries()) yield { line: at + 1, account };
  },
});
const account = (n: number, more: Partial<SourceAccount> = {}): SourceAccount => ({
  id: `b${n}`,
  email: `batch${n}@example.test`,
  passwordHash: HASH_A,
  identities: [{ provider: "github", subject: String(n) }],
  ...more,
});

/** A migrated target with no account; `close` also drops what `open` created. */
type Opener = () => Promise<{ db: AnyKysely; close(): Promise<void> }>;

const onSqlite = (dir: () => string): Opener => {
  let count = 0;
  return async () => {
    const target = await openTarget(`sqlite:${join(dir(), `t${++count}.db`)}`);
    return { db: target.db, close: () => target.close() };
  };
};

/** A database of its own on the shared PostgreSQL test server for each target, dropped at the end. */
const onPostgres: Opener = async () => {
  const database = await ownDatabase(POSTGRES, "portcullis_batch");
  const target = await openTarget(database.url);
  return {
    db: target.db,
    async close() {
      await target.close();
      await database.remove();
    },
  };
};

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-import-batch-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ["SQLite", onSqlite(() => dir)],
  ["PostgreSQL", onPostgres],
])("importAccounts - batches on %s", (_name, open: Opener) => {
  const opened: { close(): Promise<void> }[] = [];
  const fresh = async () => {
    const target = await open();
    opened.push(target);
    await createSqlStores({ db: target.db }).migrate();
    return target.db;
  };
  afterAll(async () => {
    for (const target of opened) await target.close();
  });

  it("insertUsersAndLinks - writes the rows UserStore.create and IdentityStore.link write", async () => {
    const db = await fresh();
    const stores = createSqlStores({ db });
    const context = { issuers: {}, now: 1_700_000_000_000 };
    const viaStore = prepareAccount(account(1, { name: "A", emailVerified: true }), {
      ...context,
      generateId: () => "s",
    });
    const viaBatch = prepareAccount(account(2, { name: "A", emailVerified: true }), {
      ...context,
      generateId: () => "b",
    });
    if ("skip" in viaStore || "skip" in viaBatch) throw new Error("expected accounts");
    await stores.users.create(viaStore.user);
    for (const identity of viaStore.identities)
      await stores.identities.link({
        ...identity,
        userId: "s",
        email: null,
        createdAt: viaStore.user.createdAt,
      });
    await insertUsersAndLinks(db, tableNames(), [viaBatch]);
    const users = await db.selectFrom("portcullis_users").selectAll().orderBy("id").execute();
    const links = await db.selectFrom("portcullis_identities").selectAll().orderBy("user_id").execute();
    expect({ ...users[0], id: "", email: "" }).toEqual({ ...users[1], id: "", email: "" });
    expect({ ...links[0], user_id: "", subject: "" }).toEqual({ ...links[1], user_id: "", subject: "" });
  });

  it("importAccounts - a batch that meets a conflict is written one account at a time: only the bad row is skipped", async () => {
    const db = await fresh();
    let id = 0;
    // Rows 3 and 4 get the same user id: the batch's insert fails, its accounts are written one by one.
    const generateId = () => (++id === 4 ? "id-3" : `id-${id}`);
    const accounts = Array.from({ length: 6 }, (_, at) => account(at + 1));
    const summary = await importAccounts({
      source: source(accounts),
      target: { db },
      batchSize: 4,
      generateId,
    });
    expect(summary).toMatchObject({ rows: 6, imported: 5, identities: 5 });
    expect(summary.skipped).toEqual({ email_taken: { count: 1, lines: [4] } });
    const users = await db.selectFrom("portcullis_users").select("email").orderBy("email").execute();
    expect(users.map((user) => user.email)).toEqual([1, 2, 3, 5, 6].map((n) => `batch${n}@example.test`));
  });

  it("importAccounts - a database error rejects; the batches committed before stay", async () => {
    const db = await fresh();
    const failing: ImportSource = {
      name: "failing",
      async *rows() {
        for (let n = 1; n <= 5; n++) {
          // Row 5 is read after the first two batches are written: the identities table goes away.
          if (n === 5) await db.schema.dropTable("portcullis_identities").execute();
          yield { line: n, account: account(n) };
        }
      },
    };
    await expect(importAccounts({ source: failing, target: { db }, batchSize: 2 })).rejects.toThrow();
    expect(
      await db.selectFrom("portcullis_import_ledger").select("source_id").orderBy("source_id").execute(),
    ).toEqual(["b1", "b2", "b3", "b4"].map((source_id) => ({ source_id })));
  });

  it("importAccounts - a changed hash replaces the one the import wrote, never one set in Portcullis since", async () => {
    const db = await fresh();
    const { users } = createSqlStores({ db });
    const run = (more: Partial<SourceAccount>, dryRun = false) =>
      importAccounts({ source: source([account(1, more)]), target: { db }, dryRun });
    expect(await run({})).toMatchObject({ imported: 1 });
    expect(await run({ passwordHash: HASH_B }, true)).toMatchObject({ imported: 0, updated: 1 });
    expect(await users.findByEmail("batch1@example.test")).toMatchObject({ passwordHash: HASH_A });
    expect(await run({ passwordHash: HASH_B })).toMatchObject({ updated: 1 });
    const user = await users.findByEmail("batch1@example.test");
    expect(user).toMatchObject({ passwordHash: HASH_B });
    await users.update(user?.id ?? "", { passwordHash: HASH_C });
    expect(await run({ passwordHash: HASH_A, name: "Renamed" })).toMatchObject({ updated: 1 });
    expect(await users.findByEmail("batch1@example.test")).toMatchObject({
      passwordHash: HASH_C,
      name: "Renamed",
    });
    expect(await run({ passwordHash: HASH_A, name: "Renamed" })).toMatchObject({
      updated: 0,
      skipped: { already_imported: { count: 1, lines: [1] } },
    });
  });

  it("importAccounts - an address of an earlier batch is a duplicate, in a dry run and a real one; batches larger than one INSERT", async () => {
    const db = await fresh();
    const rows = [account(1), account(2, { email: "BATCH1@example.test", identities: [] }), account(3)];
    for (const dryRun of [true, false])
      expect(
        await importAccounts({ source: source(rows), target: { db }, batchSize: 1, dryRun }),
      ).toMatchObject({
        imported: 2,
        skipped: { duplicate_email: { count: 1, lines: [2] } },
      });
    const many = Array.from({ length: 1_200 }, (_, at) => account(at + 10));
    const summary = await importAccounts({ source: source(many, "many"), target: { db }, batchSize: 1_200 });
    expect(summary).toMatchObject({ imported: 1_200, identities: 1_200, skipped: {} });
    await expect(importAccounts({ source: source(many), target: { db }, batchSize: 0 })).rejects.toThrow(
      /batchSize must be a whole number from 1 to 10000/,
    );
  });

  it("sqlLedger - create() adds the digest columns to an older ledger; drop() removes it", async () => {
    const db = await fresh();
    await db.schema
      .createTable("portcullis_import_ledger")
      .addColumn("source", "varchar(191)", (column) => column.notNull())
      .addColumn("source_id", "varchar(191)", (column) => column.notNull())
      .addColumn("user_id", "varchar(191)", (column) => column.notNull())
      .addColumn("imported_at", "bigint", (column) => column.notNull())
      .execute();
    const ledger = sqlLedger(db);
    await ledger.create();
    const table = (await db.introspection.getTables()).find(
      (found) => found.name === "portcullis_import_ledger",
    );
    expect(table?.columns.map((column) => column.name)).toEqual(
      expect.arrayContaining(["digest", "hash_digest", "source_id"]),
    );
    await ledger.drop();
    expect(await ledger.exists()).toBe(false);
    await ledger.drop();
  });
});

describe("formatSummary", () => {
  it("formatSummary - names the updated accounts when there are some", () => {
    const summary = { rows: 3, imported: 1, updated: 2, identities: 1, skipped: {}, dryRun: false };
    expect(formatSummary(summary)).toBe(
      "3 rows read, imported 1 accounts (1 provider links), updated 2, skipped 0\n",
    );
    expect(formatSummary({ ...summary, dryRun: true })).toBe(
      "dry run: 3 rows read, would import 1 accounts (1 provider links), would update 2, skipped 0\n",
    );
    expect(formatSummary({ ...summary, updated: 0 })).toBe(
      "3 rows read, imported 1 accounts (1 provider links), skipped 0\n",
    );
  });
});
