import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditDraft, AuditEntry, AuditLinks } from "@portcullis/core";
import { runAuditLogStoreSuite } from "@portcullis/testing";
import { Kysely, MysqlDialect } from "kysely";
import { createPool } from "mysql2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLogSchema } from "./audit-log-migration.js";
import { auditDraft, checkAuditLogUpgrade } from "./audit-log-upgrade.js";
import { type AnyKysely, type SqlDialect, tableNames } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import {
  postgresDatabase,
  postgresDb,
  postgresSchemaForFile,
  sqliteDb,
  usePostgres,
} from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";

// The AuditLogStore conformance suite on SQLite (in memory and in a file), PostgreSQL (a schema of
// this file's own) and MariaDB (a database of this file's own; skipped, loudly, only outside CI
// on a machine without one); each test gets tables under a prefix of its own. Then appends from
// two pools at once on each dialect, and the upgrade to 0015.
const postgres = postgresSchemaForFile();
const mysqlServer = await useMysql();
const mysql = mysqlServer ? await mysqlDatabase(mysqlServer.url) : null;
let dir: string;
let file: AnyKysely;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-audit-"));
  file = sqliteDb(join(dir, "audit.db"));
});
afterAll(async () => {
  await file?.destroy();
  await rm(dir, { recursive: true, force: true });
  await mysql?.drop();
  await mysqlServer?.stop();
});

/** The audit log under a table prefix of its own on `db`: only its two tables made, dropped after the test. */
async function freshAuditLog(db: AnyKysely, dialect: SqlDialect, sweepBatchRows?: number) {
  const tablePrefix = `a${randomBytes(5).toString("hex")}_`;
  const schema = auditLogSchema(tableNames(tablePrefix), dialect);
  await schema.up(db);
  return {
    store: createSqlStores({ db, tablePrefix, ...(sweepBatchRows ? { sweepBatchRows } : {}) }).auditLog,
    tablePrefix,
    cleanup: async () => {
      await schema.down?.(db);
    },
  };
}

runAuditLogStoreSuite({
  name: "sqlite memory",
  create: async () => {
    const db = sqliteDb();
    await migrate(db);
    return { store: createSqlStores({ db }).auditLog, cleanup: () => db.destroy() };
  },
});
runAuditLogStoreSuite({ name: "sqlite file", create: () => freshAuditLog(file, "sqlite") });
runAuditLogStoreSuite({ name: "postgres", create: () => freshAuditLog(postgres.db, "postgres") });
// Small sweep batches: the sweep's batches follow each other until one deletes nothing.
runAuditLogStoreSuite({
  name: "postgres, sweeps of 2",
  create: () => freshAuditLog(postgres.db, "postgres", 2),
});
describe.skipIf(!mysql)("mysql", () => {
  runAuditLogStoreSuite({
    name: "mysql",
    create: () => {
      if (!mysql) throw new Error("unreachable: skipped without a server");
      return freshAuditLog(mysql.db, "mysql");
    },
  });
});

/** A seal as the core's would be: a hash over every field of the draft and its links. */
const sha256Seal = (draft: AuditDraft, links: AuditLinks): string =>
  createHash("sha256")
    .update(JSON.stringify([draft, links]))
    .digest("hex");

/** The draft's own fields of an entry, in the draft's order. */
const draftOf = ({ seq, prevHash, orgPrevHash, hash, ...draft }: AuditEntry): AuditDraft => draft;

/**
 * 40 appends of 1 to 3 drafts at once (organizations a, b and none in turn), half through `a`'s
 * stores, half through `b`'s (two pools, two connections to one file): the log holds seqs 1 … N
 * without a gap or a repeat, each batch's entries consecutive, and both chains intact.
 */
async function checkConcurrentAppends(a: AnyKysely, b: AnyKysely, dialect: SqlDialect): Promise<void> {
  const { store, tablePrefix, cleanup } = await freshAuditLog(a, dialect);
  const stores = [store, createSqlStores({ db: b, tablePrefix }).auditLog];
  try {
    const organizations = ["org-a", "org-b", null];
    const batches = Array.from({ length: 40 }, (_, n) =>
      Array.from({ length: (n % 3) + 1 }, (_, i) =>
        auditDraft(`e${n}-${i}`, 1_000 + n, organizations[(n + i) % 3] ?? null),
      ),
    );
    const results = await Promise.all(
      batches.map((batch, n) => (stores[n % 2] ?? store).append(batch, sha256Seal)),
    );
    for (const [n, entries] of results.entries()) {
      expect(entries.map(draftOf)).toEqual(batches[n]);
      const first = entries[0]?.seq ?? 0;
      expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => first + i));
    }
    const all = await store.list({ order: "asc", limit: 1_000 });
    expect(all.map((entry) => entry.seq)).toEqual(batches.flat().map((_, i) => i + 1));
    expect(all).toEqual(results.flat().sort((x, y) => x.seq - y.seq));
    const heads = new Map<string, string>();
    let prevHash = "";
    for (const entry of all) {
      const orgPrevHash = entry.organizationId === null ? null : (heads.get(entry.organizationId) ?? "");
      expect([entry.prevHash, entry.orgPrevHash]).toEqual([prevHash, orgPrevHash]);
      expect(entry.hash).toBe(sha256Seal(draftOf(entry), { seq: entry.seq, prevHash, orgPrevHash }));
      prevHash = entry.hash;
      if (entry.organizationId !== null) heads.set(entry.organizationId, entry.hash);
    }
    // The next append, from either side, follows the last one.
    const [next] = await (stores[1] ?? store).append([auditDraft("last", 2_000, "org-a")], sha256Seal);
    expect([next?.seq, next?.prevHash, next?.orgPrevHash]).toEqual([
      all.length + 1,
      prevHash,
      heads.get("org-a"),
    ]);
  } finally {
    await cleanup();
  }
}

describe("audit log: appends from two pools at once", () => {
  it("append - 40 concurrent appends through two PostgreSQL pools never fork either chain", async () => {
    const server = await usePostgres();
    const database = await postgresDatabase(server.url);
    const timeouts = { statementTimeoutMs: 5_000, lockTimeoutMs: 2_500, connectionTimeoutMs: 5_000 };
    const [a, b] = [
      postgresDb(database.url, undefined, 10, timeouts),
      postgresDb(database.url, undefined, 10, timeouts),
    ];
    try {
      await checkConcurrentAppends(a, b, "postgres");
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
      await database.drop();
      await server.stop();
    }
  });

  it("append - 40 concurrent appends through two connections to one SQLite file never fork either chain", async () => {
    const other = sqliteDb(join(dir, "audit.db"));
    try {
      await checkConcurrentAppends(file, other, "sqlite");
    } finally {
      await other.destroy();
    }
  });

  it.skipIf(!mysql)(
    "append - 40 concurrent appends through two MariaDB pools never fork either chain",
    async () => {
      if (!mysql || !mysqlServer) throw new Error("unreachable: skipped without a server");
      const url = new URL(mysqlServer.url);
      url.pathname = `/${(await mysql.db.selectNoFrom((eb) => eb.fn<string>("database").as("name")).executeTakeFirstOrThrow()).name}`;
      const other = new Kysely({
        dialect: new MysqlDialect({ pool: createPool({ uri: url.toString(), connectionLimit: 10 }) }),
      }) as AnyKysely;
      try {
        await checkConcurrentAppends(mysql.db, other, "mysql");
      } finally {
        await other.destroy();
      }
    },
  );
});

describe("audit log: upgrade", () => {
  it("migrate - 0015 adds the audit log beside an existing API key (sqlite)", async () => {
    const db = sqliteDb();
    try {
      await checkAuditLogUpgrade(db);
    } finally {
      await db.destroy();
    }
  });

  it("migrate - 0015 adds the audit log beside an existing API key (postgres)", async () => {
    await checkAuditLogUpgrade(postgres.db);
  });

  it.skipIf(!mysql)("migrate - 0015 adds the audit log beside an existing API key (mysql)", async () => {
    if (mysql) await checkAuditLogUpgrade(mysql.db);
  });
});
