import { createHash } from "node:crypto";
import type { AuditDraft, AuditEntry, AuditLinks } from "@portcullis/core";
import { runAuditLogStoreSuite } from "@portcullis/testing";
import { describe, expect } from "vitest";
import { auditLogSchema } from "./audit-log-migration.js";
import { auditDraft, checkAuditLogUpgrade } from "./audit-log-upgrade.js";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { sqliteDb, storeOnOwnTables } from "./test-databases.js";
import { databasesForFile, onBothPools, onEachDialect, twoPoolTests } from "./test-two-pools.js";

// The AuditLogStore conformance suite on SQLite (in memory and in a file), PostgreSQL (a schema of
// this file's own) and MariaDB (a database of this file's own; skipped, loudly, only outside CI
// on a machine without one); each test gets tables under a prefix of its own. Then appends from
// two pools at once on each dialect, and the upgrade to 0015.
const databases = await databasesForFile("audit");
const { postgres, mysql } = databases;

/** The audit log on its two tables of its own on `db` (`storeOnOwnTables`). */
const freshAuditLog = (db: AnyKysely, sweepBatchRows?: number) =>
  storeOnOwnTables(db, "a", auditLogSchema, (stores) => stores.auditLog, sweepBatchRows);

runAuditLogStoreSuite({
  name: "sqlite memory",
  create: async () => {
    const db = sqliteDb();
    await migrate(db);
    return { store: createSqlStores({ db }).auditLog, cleanup: () => db.destroy() };
  },
});
runAuditLogStoreSuite({ name: "sqlite file", create: () => freshAuditLog(databases.file) });
runAuditLogStoreSuite({ name: "postgres", create: () => freshAuditLog(postgres.db) });
// Small sweep batches: the sweep's batches follow each other until one deletes nothing.
runAuditLogStoreSuite({
  name: "postgres, sweeps of 2",
  create: () => freshAuditLog(postgres.db, 2),
});
describe.skipIf(!mysql)("mysql", () => {
  runAuditLogStoreSuite({
    name: "mysql",
    create: () => {
      if (!mysql) throw new Error("unreachable: skipped without a server");
      return freshAuditLog(mysql.db);
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

/** Checks that `all` (in seq order, from 1) links and seals each entry after the one before it, per chain; answers the heads. */
function expectChains(all: AuditEntry[]): { prevHash: string; heads: Map<string, string> } {
  const heads = new Map<string, string>();
  let prevHash = "";
  for (const entry of all) {
    const orgPrevHash = entry.organizationId === null ? null : (heads.get(entry.organizationId) ?? "");
    expect([entry.prevHash, entry.orgPrevHash]).toEqual([prevHash, orgPrevHash]);
    expect(entry.hash).toBe(sha256Seal(draftOf(entry), { seq: entry.seq, prevHash, orgPrevHash }));
    prevHash = entry.hash;
    if (entry.organizationId !== null) heads.set(entry.organizationId, entry.hash);
  }
  return { prevHash, heads };
}

/**
 * Appends without an organization (a sign-in's), after each store has written: on PostgreSQL a
 * store then appends in one statement that writes only if the deployment's head is still the one
 * it wrote last. Twelve appends one after the other through the two stores in an irregular order
 * (each store's head is stale whenever the other wrote after it), then 5 waves of 8 at once: every
 * append lands once, seqs run 1 … N, both stores' answers are what is stored, the chain holds.
 */
async function checkAppendsAfterEachOther(a: AnyKysely, b: AnyKysely): Promise<void> {
  const other = (tablePrefix: string) => createSqlStores({ db: b, tablePrefix }).auditLog;
  await onBothPools(freshAuditLog(a), other, async (stores) => {
    const through = (n: number) => stores[n] ?? stores[0];
    const appended: AuditEntry[] = [];
    const drafts = (name: string, count: number) =>
      Array.from({ length: count }, (_, i) => auditDraft(`${name}-${i}`, 1_000, null));
    for (const [n, side] of [0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1].entries())
      appended.push(...(await through(side).append(drafts(`one-${n}`, (n % 2) + 1), sha256Seal)));
    for (let wave = 0; wave < 5; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          through((n + wave) % 2).append(drafts(`w${wave}-${n}`, 2), sha256Seal),
        ),
      );
      appended.push(...answers.flat());
    }
    const all = await through(0).list({ order: "asc", limit: 1_000 });
    expect(all.map((entry) => entry.seq)).toEqual(appended.map((_, i) => i + 1));
    expect(all).toEqual([...appended].sort((x, y) => x.seq - y.seq));
    expectChains(all);
  });
}

/**
 * 40 appends of 1 to 3 drafts at once (organizations a, b and none in turn), half through `a`'s
 * stores, half through `b`'s (two pools, two connections to one file): the log holds seqs 1 … N
 * without a gap or a repeat, each batch's entries consecutive, and both chains intact.
 */
async function checkConcurrentAppends(a: AnyKysely, b: AnyKysely): Promise<void> {
  const other = (tablePrefix: string) => createSqlStores({ db: b, tablePrefix }).auditLog;
  await onBothPools(freshAuditLog(a), other, async (stores) => {
    const [store] = stores;
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
    const { prevHash, heads } = expectChains(all);
    // The next append, from either side, follows the last one.
    const [next] = await stores[1].append([auditDraft("last", 2_000, "org-a")], sha256Seal);
    expect([next?.seq, next?.prevHash, next?.orgPrevHash]).toEqual([
      all.length + 1,
      prevHash,
      heads.get("org-a"),
    ]);
  });
}

describe("audit log: appends from two pools at once", () => {
  twoPoolTests(
    databases,
    (through) => `append - 40 concurrent appends through ${through} never fork either chain`,
    checkConcurrentAppends,
  );
  twoPoolTests(
    databases,
    (through) => `append - a sign-in's appends through ${through}, in turn and at once, never fork the chain`,
    checkAppendsAfterEachOther,
  );
});

describe("audit log: upgrade", () => {
  onEachDialect(
    databases,
    "migrate - 0015 adds the audit log beside an existing API key",
    checkAuditLogUpgrade,
  );
});
