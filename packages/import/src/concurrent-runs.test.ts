import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores } from "@portcullis/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAccounts } from "./import-accounts.js";
import { jsonlSource } from "./jsonl-source.js";
import { type OpenedTarget, openTarget } from "./open-target.js";
import type { ImportSummary } from "./summary.js";
import { MARIADB, type OwnDatabase, ownDatabase, POSTGRES } from "./test-scenario.js";

// Two runs of one source at once on one database (an operator who started the import twice, or two
// deploys' jobs), on PostgreSQL, MariaDB and a SQLite file: each run on its own connection pool
// (SQLite: its own connection to the file), so their batches interleave and race for the same
// addresses and source ids. Every account must exist exactly once, with its ledger entry and its
// provider link, and the two summaries must add up to the source.
const ROWS = 3_000;
const HASH = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";

const line = (n: number) =>
  JSON.stringify({
    id: `c${n}`,
    email: `concurrent${n}@example.test`,
    passwordHash: HASH,
    ...(n % 2 === 0 ? { identities: [{ provider: "github", subject: String(700_000 + n) }] } : {}),
  });

/** How many rows a summary skipped in all, by reason. */
const skippedBy = (summary: ImportSummary) =>
  Object.fromEntries(Object.entries(summary.skipped).map(([reason, rows]) => [reason, rows?.count ?? 0]));

async function sqliteFile(): Promise<OwnDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-concurrent-sqlite-"));
  return { url: `sqlite:${join(dir, "target.db")}`, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The users, ledger entries and links as rows, to be checked in JavaScript on every dialect. */
async function written(db: OpenedTarget["db"]) {
  const users = await db.selectFrom("portcullis_users").select(["id", "email"]).execute();
  const ledger = await db.selectFrom("portcullis_import_ledger").select(["source_id", "user_id"]).execute();
  const links = await db.selectFrom("portcullis_identities").select(["user_id", "subject"]).execute();
  return {
    users: users as { id: string; email: string }[],
    ledger: ledger as { source_id: string; user_id: string }[],
    links: links as { user_id: string; subject: string }[],
  };
}

/** The source row's number in an address `concurrent<n>@example.test`. */
const numberOf = (email: string) => Number(/^concurrent(\d+)@/.exec(email)?.[1]);

function concurrentRuns(name: string, open: () => Promise<OwnDatabase>): void {
  describe(`importAccounts on ${name} - two runs of one source at once`, () => {
    let dir: string;
    let file: string;
    let database: OwnDatabase | undefined;
    const targets: OpenedTarget[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "portcullis-concurrent-"));
      file = join(dir, "users.jsonl");
      await writeFile(file, `${Array.from({ length: ROWS }, (_, at) => line(at + 1)).join("\n")}\n`);
      database = await open();
      for (let i = 0; i < 3; i++) targets.push(await openTarget(database.url));
      await createSqlStores({ db: targets[0]?.db as OpenedTarget["db"] }).migrate();
    }, 300_000);
    afterAll(async () => {
      for (const target of targets) await target.close();
      await database?.remove();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("importAccounts - every account once, with its ledger entry and link; the summaries add up; a third run finds all imported", async () => {
      const [one, two, three] = targets as [OpenedTarget, OpenedTarget, OpenedTarget];
      const runs = await Promise.all(
        [one, two].map((target, at) =>
          importAccounts({
            source: jsonlSource(file),
            target: { db: target.db },
            batchSize: at === 0 ? 500 : 170,
          }),
        ),
      );
      for (const summary of runs) {
        expect(summary.rows).toBe(ROWS);
        expect(summary.updated).toBe(0);
      }
      const [a, b] = runs as [ImportSummary, ImportSummary];
      const outcome = JSON.stringify({
        a: { imported: a.imported, ...skippedBy(a) },
        b: { imported: b.imported, ...skippedBy(b) },
      });
      // Each row was imported by one run; the other skipped it as imported (before it read the
      // ledger, or meanwhile): never as an address or a link taken.
      expect(a.imported + b.imported, outcome).toBe(ROWS);
      expect(
        Object.keys({ ...skippedBy(a), ...skippedBy(b) }).filter((reason) => reason !== "already_imported"),
        outcome,
      ).toEqual([]);
      expect(a.imported + (skippedBy(a).already_imported ?? 0), outcome).toBe(ROWS);
      expect(b.imported + (skippedBy(b).already_imported ?? 0), outcome).toBe(ROWS);
      expect(a.identities + b.identities).toBe(ROWS / 2);

      // Every account once; its ledger entry names its source row; its link, its row's subject.
      const { users, ledger, links } = await written(one.db);
      expect(users).toHaveLength(ROWS);
      expect(new Set(users.map((user) => numberOf(user.email))).size).toBe(ROWS);
      const rowOf = new Map(users.map((user) => [user.id, numberOf(user.email)]));
      expect(ledger).toHaveLength(ROWS);
      expect(ledger.filter((entry) => entry.source_id !== `c${rowOf.get(entry.user_id)}`)).toEqual([]);
      expect(links).toHaveLength(ROWS / 2);
      expect(links.filter((link) => Number(link.subject) - 700_000 !== rowOf.get(link.user_id))).toEqual([]);

      const again = await importAccounts({ source: jsonlSource(file), target: { db: three.db } });
      expect(again).toMatchObject({ rows: ROWS, imported: 0, updated: 0, identities: 0 });
      expect(skippedBy(again)).toEqual({ already_imported: ROWS });
    }, 300_000);
  });
}

concurrentRuns("PostgreSQL", () => ownDatabase(POSTGRES, "portcullis_concurrent"));
concurrentRuns("MariaDB", () => ownDatabase(MARIADB, "portcullis_concurrent"));
concurrentRuns("SQLite", sqliteFile);
