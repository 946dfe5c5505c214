import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores } from "@portcullis/store-sql";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgres } from "../../store-sql/src/test-databases.js";
import { importAccounts } from "./import-accounts.js";
import { jsonlSource } from "./jsonl-source.js";
import { type OpenedTarget, openTarget } from "./open-target.js";
import type { ImportSummary } from "./summary.js";
import { pgAdmin } from "./test-scenario.js";

// Two runs of one source at once on one PostgreSQL database (an operator who started the import
// twice, or two deploys' jobs): each on its own connection pool, so their batches interleave and
// race for the same addresses and source ids. Every account must exist exactly once, with its
// ledger entry and its provider link, and the two summaries must add up to the source.
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

describe("importAccounts - two runs of one source at once", () => {
  let dir: string;
  let file: string;
  let server: { url: string; stop(): Promise<void> } | null;
  const targets: OpenedTarget[] = [];
  const database = `portcullis_concurrent_${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-concurrent-"));
    file = join(dir, "users.jsonl");
    await writeFile(file, `${Array.from({ length: ROWS }, (_, at) => line(at + 1)).join("\n")}\n`);
    server = await usePostgres();
    if (!server) throw new Error("no PostgreSQL server for the concurrent-runs test");
    await pgAdmin(server.url, `create database ${database}`);
    const address = new URL(server.url);
    address.pathname = `/${database}`;
    for (let i = 0; i < 3; i++) targets.push(await openTarget(address.toString()));
    await createSqlStores({ db: targets[0]?.db as OpenedTarget["db"] }).migrate();
  }, 300_000);
  afterAll(async () => {
    for (const target of targets) await target.close();
    if (server) {
      await pgAdmin(server.url, `drop database if exists ${database} with (force)`);
      await server.stop();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute((targets[0] as OpenedTarget).db)).rows[0]?.n);

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

    expect(await count(sql`select count(*) as n from portcullis_users`)).toBe(ROWS);
    expect(await count(sql`select count(*) as n from portcullis_import_ledger`)).toBe(ROWS);
    expect(await count(sql`select count(*) as n from portcullis_identities`)).toBe(ROWS / 2);
    expect(
      await count(sql`select count(*) as n from portcullis_users u
        join portcullis_import_ledger l on l.user_id = u.id and l.source_id = 'c' || substr(u.email, 11, position('@' in u.email) - 11)`),
    ).toBe(ROWS);
    expect(
      await count(sql`select count(*) as n from portcullis_identities i
        join portcullis_users u on u.id = i.user_id
        where i.subject::int - 700000 = substr(u.email, 11, position('@' in u.email) - 11)::int`),
    ).toBe(ROWS / 2);

    const again = await importAccounts({ source: jsonlSource(file), target: { db: three.db } });
    expect(again).toMatchObject({ rows: ROWS, imported: 0, updated: 0, identities: 0 });
    expect(skippedBy(again)).toEqual({ already_imported: ROWS });
  }, 300_000);
});
